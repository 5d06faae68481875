"""API keys: created with a role, shown once, stored as the SHA-256 of their secret part.

A key reads `lgk_<key_id>_<secret>`: `key_id` (12 hex digits) is public and finds the row;
`secret` (32 random bytes, URL-safe base64) is stored only as its SHA-256 hex digest, compared
with `hmac.compare_digest`. A plain hash is enough because the secret has 256 bits of entropy:
nothing can be guessed, so a slow password hash would only slow every request (docs/api.md).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.orm import Session

from web.errors import ApiKeyError
from web.models import ROLES, ApiKeyInfo, CreatedKey, Role
from web.tables import ApiKey

KEY_PREFIX = "lgk"
_KEY_ID_BYTES = 6  # 12 hex digits
_SECRET_BYTES = 32
# Compared against when the key id is unknown, so both paths hash and compare once.
_NO_DIGEST = "0" * 64


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def split_key(key: str) -> tuple[str, str] | None:
    """(key_id, secret) of a well-formed key, else None."""
    prefix, sep, rest = key.strip().partition("_")
    key_id, sep2, secret = rest.partition("_")
    if prefix != KEY_PREFIX or not sep or not sep2 or not secret:
        return None
    if len(key_id) != 2 * _KEY_ID_BYTES or any(c not in "0123456789abcdef" for c in key_id):
        return None
    return key_id, secret


def _info(row: ApiKey) -> ApiKeyInfo:
    role: Role = row.role  # type: ignore[assignment]  # written only from ROLES
    return ApiKeyInfo(row.key_id, role, row.name, row.created_at, row.revoked_at)


def create_key(session: Session, role: str, name: str | None = None) -> CreatedKey:
    """Store a new key with this role; the returned `key` is the only copy of its secret."""
    if role not in ROLES:
        raise ApiKeyError(f"unknown role {role!r}: one of {', '.join(ROLES)}", field="role")
    if name is not None and any(not character.isprintable() for character in name):
        # PostgreSQL cannot store NUL, and a name is shown in lists: no control characters.
        raise ApiKeyError("the key's name may not hold control characters", field="name")
    key_id = secrets.token_hex(_KEY_ID_BYTES)
    secret = secrets.token_urlsafe(_SECRET_BYTES)
    row = ApiKey(
        key_id=key_id,
        secret_sha256=_digest(secret),
        role=role,
        name=name,
        created_at=datetime.now(UTC),
        revoked_at=None,
    )
    session.add(row)
    session.commit()
    return CreatedKey(key=f"{KEY_PREFIX}_{key_id}_{secret}", info=_info(row))


def authenticate(session: Session, key: str) -> ApiKeyInfo | None:
    """The stored key matching `key`, None when it is malformed, unknown or revoked."""
    parts = split_key(key)
    if parts is None:
        return None
    key_id, secret = parts
    row = session.scalars(sa.select(ApiKey).where(ApiKey.key_id == key_id)).one_or_none()
    stored = row.secret_sha256 if row is not None else _NO_DIGEST
    matches = hmac.compare_digest(_digest(secret), stored)
    if row is None or not matches or row.revoked_at is not None:
        return None
    return _info(row)


def list_keys(session: Session) -> list[ApiKeyInfo]:
    """Every stored key (revoked ones included), oldest first; no secrets."""
    return [_info(row) for row in session.scalars(sa.select(ApiKey).order_by(ApiKey.id))]


def revoke_key(session: Session, key_id: str) -> ApiKeyInfo:
    """Mark a key revoked from now on (kept for the record); revoking twice changes nothing."""
    row = session.scalars(sa.select(ApiKey).where(ApiKey.key_id == key_id)).one_or_none()
    if row is None:
        raise ApiKeyError(f"no API key with id {key_id!r}", field="key_id")
    if row.revoked_at is None:
        row.revoked_at = datetime.now(UTC)
        session.commit()
    return _info(row)


class KeyCache:
    """Keys verified in the last `ttl_s` seconds, so most requests read no database row.

    Only successful look-ups are kept, under the SHA-256 of the whole presented key (never the
    key itself): a new key works at once, a revoked one stops within `ttl_s` in every worker.
    `ttl_s` 0 turns the cache off. Thread-safe enough for CPython (single dict operations).
    """

    def __init__(self, ttl_s: float, max_entries: int = 10_000):
        self.ttl_s = ttl_s
        self.max_entries = max_entries
        self._entries: dict[bytes, tuple[float, ApiKeyInfo]] = {}
        self._reading: dict[
            tuple[asyncio.AbstractEventLoop, bytes], asyncio.Task[ApiKeyInfo | None]
        ] = {}

    @staticmethod
    def _slot(key: str) -> bytes:
        return hashlib.sha256(key.encode("utf-8")).digest()

    def get(self, key: str) -> ApiKeyInfo | None:
        """The cached key, None when absent or expired."""
        if self.ttl_s <= 0:
            return None
        entry = self._entries.get(self._slot(key))
        if entry is None or entry[0] < time.monotonic():
            return None
        return entry[1]

    def put(self, key: str, info: ApiKeyInfo) -> None:
        """Remember a verified key for ttl_s seconds."""
        if self.ttl_s <= 0:
            return
        if len(self._entries) >= self.max_entries:
            self._entries.clear()
        self._entries[self._slot(key)] = (time.monotonic() + self.ttl_s, info)

    async def verify(
        self, key: str, read: Callable[[], Awaitable[ApiKeyInfo | None]]
    ) -> ApiKeyInfo | None:
        """The cached key, else `read()`'s (kept when found). The requests of one event loop
        that ask for a key while it is being read await that one read: when a cached key
        expires under load, every request that came meanwhile would read the same row."""
        info = self.get(key)
        if info is not None or self.ttl_s <= 0:
            return info if info is not None else await read()
        loop = asyncio.get_running_loop()
        reading = (loop, self._slot(key))
        task = self._reading.get(reading)
        if task is None or task.cancelled():
            task = self._reading[reading] = loop.create_task(self._read(reading, key, read))
        return await asyncio.shield(task)  # a caller that goes away leaves the read to others

    async def _read(
        self,
        reading: tuple[asyncio.AbstractEventLoop, bytes],
        key: str,
        read: Callable[[], Awaitable[ApiKeyInfo | None]],
    ) -> ApiKeyInfo | None:
        try:
            info = await read()
            if info is not None:
                self.put(key, info)
            return info
        finally:
            self._reading.pop(reading, None)
