"""Detached Ed25519 signatures of evidence packs: who made this exact file.

The manifest's checksums show that a pack is whole, not who made it: anyone can build a
consistent pack. The server signs every pack it exports with its private key
(`LEXGATE_AUDIT_SIGNING_KEY_PATH`: PKCS#8 PEM, mode 0600, made on first use) and writes the
signature beside the pack (`lexgate-audit-2026Q4.zip.sig`, a small JSON file), leaving the pack's
own bytes and layout unchanged. Auditors receive the public key once, by another channel
(`lexgate audit public-key`), and check a pack with
`lexgate audit verify PACK.zip --public-key KEY.pem`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from audit.errors import PackSignatureError, SigningKeyError, SigningKeyMissingError
from audit.private_files import PRIVATE_MODE, write_private_once

ALGORITHM = "Ed25519"
SIGNATURE_SUFFIX = ".sig"
_SIGNED_FIELDS = ("algorithm", "key_fingerprint", "pack_sha256", "signature")


def signature_path(pack: Path | str) -> Path:
    """Where the signature of a pack is kept: beside it, with .sig appended."""
    return Path(f"{pack}{SIGNATURE_SUFFIX}")


def create_signing_key(path: Path | str) -> bool:
    """Make the server's signing key in path (PEM, mode 0600) unless it exists; True if made.

    Only `lexgate audit init` calls this: a key made on the fly would sign packs with a key
    the auditors were never given.
    """
    path = Path(path)
    if path.exists():
        return False
    new_key = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    try:
        write_private_once(path, new_key)
    except OSError as error:
        raise SigningKeyError(f"the pack signing key {path} cannot be made: {error}") from error
    return True


def load_signing_key(path: Path | str) -> Ed25519PrivateKey:
    """The server's signing key kept in path.

    SigningKeyMissingError (naming the path and `lexgate audit init`) when there is none;
    SigningKeyError when the file cannot be read, is readable by others, or holds no Ed25519
    private key.
    """
    path = Path(path)
    if not path.exists():
        raise SigningKeyMissingError(
            f"no pack signing key at {path}: create it once with `lexgate audit init` "
            "(or point LEXGATE_AUDIT_SIGNING_KEY_PATH at the existing key)"
        )
    try:
        mode = path.stat().st_mode & 0o777
        data = path.read_bytes()
    except OSError as error:
        raise SigningKeyError(f"the pack signing key {path} cannot be used: {error}") from error
    if mode != PRIVATE_MODE:
        raise SigningKeyError(f"the pack signing key {path} has mode {mode:04o}; make it 0600")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as error:
        raise SigningKeyError(f"{path} holds no usable private key: {error}") from error
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(f"{path} holds a {type(key).__name__}, not an Ed25519 key")
    return key


def public_key_pem(key: Ed25519PrivateKey) -> str:
    """The public half of the signing key, as PEM (SubjectPublicKeyInfo): what auditors get."""
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode("ascii")
    )


def fingerprint(public: Ed25519PublicKey) -> str:
    """SHA256:<hex> of the raw 32-byte public key, to name a key in messages and signatures."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return f"SHA256:{hashlib.sha256(raw).hexdigest()}"


def read_public_key(data: bytes, source: str) -> Ed25519PublicKey:
    """An Ed25519 public key from PEM bytes; PackSignatureError naming source otherwise."""
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as error:
        raise PackSignatureError(f"{source} holds no PEM public key: {error}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise PackSignatureError(f"{source} holds a {type(key).__name__}, not an Ed25519 key")
    return key


def sign_pack(data: bytes, key: Ed25519PrivateKey) -> bytes:
    """The signature file of a pack's bytes: JSON naming the algorithm, the key and the pack."""
    document = {
        "algorithm": ALGORITHM,
        "key_fingerprint": fingerprint(key.public_key()),
        "pack_sha256": hashlib.sha256(data).hexdigest(),
        "signature": base64.b64encode(key.sign(data)).decode("ascii"),
    }
    return (json.dumps(document, indent=2) + "\n").encode("ascii")


def _read_signature(signature: bytes) -> dict[str, Any]:
    try:
        document = json.loads(signature)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise PackSignatureError(f"the signature file is not JSON: {error}") from None
    if not isinstance(document, dict) or any(
        not isinstance(document.get(name), str) for name in _SIGNED_FIELDS
    ):
        raise PackSignatureError(
            f"the signature file must be an object with the strings {', '.join(_SIGNED_FIELDS)}"
        )
    if document["algorithm"] != ALGORITHM:
        raise PackSignatureError(f"signature algorithm {document['algorithm']!r} is not Ed25519")
    return document


def signer_of(signature: bytes) -> str:
    """The key fingerprint a signature file names (not checked: that needs the public key)."""
    return str(_read_signature(signature)["key_fingerprint"])


def verify_signature(data: bytes, signature: bytes, public: Ed25519PublicKey) -> str:
    """Check that signature was made over data with public's private key; its fingerprint.

    PackSignatureError naming what is wrong: another key, another pack, a forged signature.
    """
    document = _read_signature(signature)
    expected = fingerprint(public)
    if document["key_fingerprint"] != expected:
        raise PackSignatureError(
            f"signed by key {document['key_fingerprint']}, not by the given key {expected}"
        )
    if document["pack_sha256"] != hashlib.sha256(data).hexdigest():
        raise PackSignatureError("the signature is of another file (pack_sha256 differs)")
    try:
        public.verify(base64.b64decode(document["signature"], validate=True), data)
    except (InvalidSignature, binascii.Error, ValueError):
        raise PackSignatureError("the signature does not verify with the given key") from None
    return expected


def check_pack_signature(
    pack: Path | str, public_key_file: Path | str, signature_file: Path | str | None = None
) -> str:
    """Check the signature of the pack file (default: pack + .sig) with the public key in
    public_key_file; the signer's fingerprint. PackSignatureError naming what is wrong."""
    files = {
        "pack": Path(pack),
        "signature": Path(signature_file) if signature_file else signature_path(pack),
        "public key": Path(public_key_file),
    }
    contents = {}
    for role, path in files.items():
        try:
            contents[role] = path.read_bytes()
        except OSError as error:
            raise PackSignatureError(f"the {role} file {path} cannot be read: {error}") from None
    public = read_public_key(contents["public key"], str(files["public key"]))
    return verify_signature(contents["pack"], contents["signature"], public)


__all__ = [
    "ALGORITHM",
    "check_pack_signature",
    "create_signing_key",
    "fingerprint",
    "load_signing_key",
    "public_key_pem",
    "read_public_key",
    "sign_pack",
    "signature_path",
    "signer_of",
    "verify_signature",
]
