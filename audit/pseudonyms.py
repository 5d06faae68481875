"""Keyed pseudonyms of subject and session ids: HMAC-SHA256 with a deployment secret.

`subj_k1_3f9a…`: the kind, the key id and the first 128 bits of
HMAC-SHA256(secret, "lexgate-pseudonym-v1" NUL kind NUL raw_id), in hex. The same id gives the
same pseudonym for as long as the deployment keeps its secret; without the secret nobody can
compute one, and without the mapping store nobody can turn one back into the id.
"""

from __future__ import annotations

import hmac
import re
from pathlib import Path

from audit.errors import PseudonymError, SecretMissingError
from audit.mapping_store import load_or_create_secret, secret_path_for
from audit.models import PseudonymScheme
from audit.private_files import SecretHolder

MESSAGE_PREFIX = b"lexgate-pseudonym-v1\x00"
DIGEST_HEX_CHARS = 32  # 128 bits: no collision among any realistic number of ids
MIN_SECRET_BYTES = 16
_KIND_RE = re.compile(r"[a-z]{2,16}")
_KEY_ID_RE = re.compile(r"[a-z0-9]{1,16}")
_PSEUDONYM_RE = re.compile(rf"([a-z]{{2,16}})_([a-z0-9]{{1,16}})_([0-9a-f]{{{DIGEST_HEX_CHARS}}})")


class Pseudonymizer(SecretHolder):
    """Turns (kind, raw id) into a stable pseudonym; its repr never shows the secret."""

    __slots__ = ("_keyed", "_secret", "key_id")

    def __init__(self, secret: bytes, key_id: str) -> None:
        if len(secret) < MIN_SECRET_BYTES:
            raise PseudonymError(f"the audit secret needs at least {MIN_SECRET_BYTES} bytes")
        if not _KEY_ID_RE.fullmatch(key_id):
            raise PseudonymError(f"key id must be 1-16 of a-z, 0-9: {key_id!r}")
        self._secret = bytes(secret)
        self.key_id = key_id
        # HMAC-SHA256 keyed once: each pseudonym copies the keyed state (`hmac.HMAC.copy`),
        # where a one-shot `hmac.digest` sets up OpenSSL's MAC and hashes the key again.
        self._keyed = hmac.new(self._secret, digestmod="sha256")

    def __repr__(self) -> str:
        return f"Pseudonymizer(key_id={self.key_id!r}, secret=<hidden>)"

    @property
    def scheme(self) -> PseudonymScheme:
        """The scheme as an evidence pack describes it (the key id, never the key)."""
        return scheme_of(self.key_id)

    def pseudonym(self, kind: str, raw_id: str) -> str:
        """`{kind}_{key_id}_{hex}` for raw_id; kind (e.g. subj, sess) separates the domains."""
        if not _KIND_RE.fullmatch(kind):
            raise PseudonymError(f"kind must be 2-16 of a-z: {kind!r}")
        if not raw_id:
            raise PseudonymError("an empty id has no pseudonym")
        # kind holds no NUL, so kind NUL raw_id reads back one way only.
        message = MESSAGE_PREFIX + kind.encode() + b"\x00" + raw_id.encode("utf-8")
        mac = self._keyed.copy()
        mac.update(message)
        digest = mac.hexdigest()
        return f"{kind}_{self.key_id}_{digest[:DIGEST_HEX_CHARS]}"


def parse_pseudonym(pseudonym: str) -> tuple[str, str]:
    """(kind, key_id) of a well-formed pseudonym; PseudonymError otherwise."""
    match = _PSEUDONYM_RE.fullmatch(pseudonym)
    if match is None:
        raise PseudonymError(f"not a pseudonym: {pseudonym!r}")
    return match.group(1), match.group(2)


def scheme_of(key_id: str) -> PseudonymScheme:
    """The pseudonym scheme of a key id, as evidence packs describe it (needs no secret)."""
    return PseudonymScheme(key_id=key_id, digest_hex_chars=DIGEST_HEX_CHARS)


def ensure_secret(store_path: Path) -> bool:
    """Make the pseudonym secret beside the mapping store (mode 0600) unless it exists; True
    if made. SecretMissingError when the store exists without it: pseudonyms are recorded
    that only the lost secret reproduces, so a new one must not be made behind anyone's back."""
    path = secret_path_for(store_path)
    if path.exists():
        return False
    if Path(store_path).exists():
        raise SecretMissingError(
            f"the pseudonym secret {path} is missing, but the mapping store {store_path} holds "
            "pseudonyms made with it: restore the file from a backup, or set LEXGATE_AUDIT_SECRET "
            "to the secret (a new secret would give every known id a new pseudonym)"
        )
    load_or_create_secret(path)
    return True
