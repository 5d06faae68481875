"""Sealed values: AES-256-GCM under a key ring, for the raw ids and answers a shared database holds.

With PostgreSQL, the pseudonym mapping and the open rounds live in the database so that any
host can continue any round; what they hold in clear elsewhere (raw subject and session ids,
raw answers) is sealed here. A key ring is an ordered list of named 256-bit keys: the first
seals, every one opens (so rows sealed under the previous key stay readable while a rotation
re-seals them). Each value is bound to its row by associated data (its pseudonym or session),
so a sealed value copied into another row does not open.

Key text: one `key_id:base64` per line (a file) or per comma (the setting), the first current.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from audit.errors import SealError
from audit.private_files import PRIVATE_MODE, SecretHolder, write_private_once

KEY_BYTES = 32
NONCE_BYTES = 12
RESEAL_BATCH = 500
_KEY_ID_RE = re.compile(r"[a-z0-9]{1,16}")


@dataclass(frozen=True, slots=True)
class Sealed:
    """A sealed value and the id of the key that sealed it."""

    key_id: str
    data: bytes  # nonce + ciphertext + tag


class KeyRing(SecretHolder):
    """Named AES-256-GCM keys; the first seals, any opens. Its repr never shows a key."""

    __slots__ = ("_ciphers", "key_ids")

    def __init__(self, keys: Sequence[tuple[str, bytes]]) -> None:
        if not keys:
            raise SealError("a key ring needs at least one key")
        ciphers: dict[str, AESGCM] = {}
        for key_id, key in keys:
            if not _KEY_ID_RE.fullmatch(key_id):
                raise SealError(f"a key id is 1-16 of a-z, 0-9: {key_id!r}")
            if len(key) != KEY_BYTES:
                raise SealError(f"key {key_id} has {len(key)} bytes; AES-256 needs {KEY_BYTES}")
            if key_id in ciphers:
                raise SealError(f"key id {key_id} is given twice")
            ciphers[key_id] = AESGCM(key)
        self._ciphers = ciphers
        self.key_ids: tuple[str, ...] = tuple(ciphers)

    def __repr__(self) -> str:
        return f"KeyRing(key_ids={self.key_ids!r})"

    @property
    def current(self) -> str:
        """The id of the key that seals."""
        return self.key_ids[0]

    def seal(self, plaintext: bytes, context: bytes) -> Sealed:
        """plaintext sealed under the current key, bound to context (the row's key)."""
        nonce = os.urandom(NONCE_BYTES)
        data = self._ciphers[self.current].encrypt(nonce, plaintext, context)
        return Sealed(self.current, nonce + data)

    def open(self, sealed: Sealed, context: bytes) -> bytes:
        """The plaintext; SealError when the key is unknown or the value altered or moved."""
        cipher = self._ciphers.get(sealed.key_id)
        if cipher is None:
            raise SealError(
                f"a value is sealed under key {sealed.key_id!r}, which this host's key ring "
                f"({', '.join(self.key_ids)}) lacks: give every host the same key file"
            )
        try:
            return cipher.decrypt(sealed.data[:NONCE_BYTES], sealed.data[NONCE_BYTES:], context)
        except InvalidTag:
            raise SealError(f"a value sealed under key {sealed.key_id!r} does not open") from None


def new_key() -> bytes:
    """256 random bits."""
    return secrets.token_bytes(KEY_BYTES)


def parse_keys(text: str) -> list[tuple[str, bytes]]:
    """`key_id:base64` items, one per line or comma (blank lines and # comments skipped)."""
    keys = []
    for item in re.split(r"[,\n]", text):
        item = item.strip()
        if not item or item.startswith("#"):
            continue
        key_id, sep, encoded = item.partition(":")
        if not sep:
            raise SealError("each store key is written key_id:base64")
        try:
            key = base64.b64decode(encoded.strip(), validate=True)
        except (binascii.Error, ValueError):
            raise SealError(f"store key {key_id.strip()!r} is not base64") from None
        keys.append((key_id.strip(), key))
    return keys


def format_keys(keys: Sequence[tuple[str, bytes]]) -> str:
    """The key file's text: one `key_id:base64` per line, the current key first."""
    return "".join(f"{key_id}:{base64.b64encode(key).decode('ascii')}\n" for key_id, key in keys)


def next_key_id(existing: Sequence[str]) -> str:
    """s1, s2, …: the first `s<n>` above every such id in existing."""
    numbers = [int(k[1:]) for k in existing if re.fullmatch(r"s\d{1,14}", k)]
    return f"s{max(numbers, default=0) + 1}"


def read_key_file(path: Path) -> list[tuple[str, bytes]]:
    """The keys of a key file (mode 0600 required); SealError when missing or unreadable."""
    try:
        mode = os.stat(path).st_mode & 0o777
        text = path.read_text(encoding="ascii")
    except FileNotFoundError:
        raise SealError(
            f"no store key file at {path}: run `lexgate audit init` on one host and copy the "
            "file to the others (or set LEXGATE_STORE_KEY)"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise SealError(f"the store key file {path} cannot be read: {error}") from None
    if mode & 0o077:
        raise SealError(f"{path} has mode {mode:04o}: it holds keys, make it 0600")
    keys = parse_keys(text)
    if not keys:
        raise SealError(f"the store key file {path} holds no key")
    return keys


def create_key_file(path: Path) -> bool:
    """Make a key file with one new key (mode 0600) unless one exists; True if made."""
    if path.exists():
        return False
    try:
        write_private_once(path, format_keys([(next_key_id(()), new_key())]).encode("ascii"))
    except OSError as error:
        raise SealError(f"could not create the store key file {path}: {error}") from error
    return True


def write_key_file(path: Path, keys: Sequence[tuple[str, bytes]]) -> None:
    """Replace the key file's keys at once (a new file renamed over it, mode 0600)."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_MODE)
    try:
        os.fchmod(descriptor, PRIVATE_MODE)
        os.write(descriptor, format_keys(keys).encode("ascii"))
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    os.replace(temporary, path)


@dataclass(frozen=True, slots=True)
class SealedColumns:
    """Where a table keeps a sealed value: its key id, its data and the context it is bound to."""

    table: sa.Table
    key_id: sa.Column[str]
    data: sa.Column[bytes]
    context: sa.Column[str]


def reseal(engine: sa.Engine, columns: SealedColumns, ring: KeyRing) -> int:
    """Seal every value of the table not under the ring's current key anew under it, in
    batches of RESEAL_BATCH rows, each its own transaction; the number of rows resealed."""
    done = 0
    while True:
        with engine.begin() as connection:
            rows = connection.execute(
                sa.select(columns.context, columns.key_id, columns.data)
                .where(columns.key_id != ring.current)
                .limit(RESEAL_BATCH)
                .with_for_update(skip_locked=True)
            ).all()
            for context, key_id, data in rows:
                value = ring.open(Sealed(key_id, data), context.encode("utf-8"))
                fresh = ring.seal(value, context.encode("utf-8"))
                connection.execute(
                    columns.table.update()
                    .where(columns.context == context, columns.key_id == key_id)
                    .values({columns.key_id.name: fresh.key_id, columns.data.name: fresh.data})
                )
        done += len(rows)
        if len(rows) < RESEAL_BATCH:
            return done


def keys_in_use(engine: sa.Engine, columns: SealedColumns) -> Iterator[str]:
    """The key ids the table's rows are sealed under."""
    with engine.connect() as connection:
        yield from connection.execute(sa.select(columns.key_id).distinct()).scalars()


__all__ = [
    "KeyRing",
    "Sealed",
    "SealedColumns",
    "create_key_file",
    "format_keys",
    "keys_in_use",
    "new_key",
    "next_key_id",
    "parse_keys",
    "read_key_file",
    "reseal",
    "write_key_file",
]
