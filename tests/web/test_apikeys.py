"""API keys on both backends: created once with a role, stored hashed, revoked; the CLI."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from hypothesis import given
from sqlalchemy.orm import Session
from typer.testing import CliRunner

from legaldb import make_engine
from lexgate.cli import app
from lexgate.settings import get_settings
from tests.strategies import api_key_like_texts
from web import authenticate, create_key, list_keys, revoke_key
from web.apikeys import split_key
from web.errors import ApiKeyError
from web.tables import ApiKey

runner = CliRunner()


@pytest.fixture
def session(migrated_url: str) -> Iterator[Session]:
    """A session on a fresh migrated database (each backend)."""
    engine = make_engine(migrated_url)
    with Session(engine) as session:
        yield session
    engine.dispose()


@pytest.mark.parametrize("role", ["checker", "auditor", "admin"], ids=str)
def test_created_key_authenticates_with_its_role(session: Session, role: str) -> None:
    """The key printed once opens the door with its role; the row holds only a digest."""
    made = create_key(session, role, name="pipeline")
    info = authenticate(session, made.key)
    assert info is not None and (info.role, info.name, info.key_id) == (
        role,
        "pipeline",
        made.info.key_id,
    )
    key_id, secret = made.key.split("_", 2)[1:]
    row = session.scalars(sa.select(ApiKey)).one()
    assert row.key_id == key_id
    assert row.secret_sha256 == hashlib.sha256(secret.encode()).hexdigest()
    stored = " ".join(str(getattr(row, column.key)) for column in ApiKey.__table__.columns)
    assert secret not in stored


def test_keys_are_distinct_and_high_entropy(session: Session) -> None:
    """Two keys never share an id or a secret; the secret has 256 bits (43 base64url chars)."""
    first, second = create_key(session, "checker"), create_key(session, "checker")
    assert first.key != second.key and first.info.key_id != second.info.key_id
    assert len(first.key.split("_", 2)[2]) >= 43


@pytest.mark.parametrize(
    "mangle",
    [
        lambda k: k[:-1] + ("A" if k[-1] != "A" else "B"),
        lambda k: k.replace("lgk_", "xyz_"),
        lambda k: k.split("_", 2)[0] + "_" + "0" * 12 + "_" + k.split("_", 2)[2],
        lambda k: k[: len(k) // 2],
        lambda k: "",
    ],
    ids=["wrong-secret", "wrong-prefix", "wrong-id", "truncated", "empty"],
)
def test_near_misses_do_not_authenticate(session: Session, mangle: object) -> None:
    """Any change to a real key fails."""
    made = create_key(session, "admin")
    assert callable(mangle)
    assert authenticate(session, mangle(made.key)) is None


def test_revoke(session: Session) -> None:
    """A revoked key no longer authenticates, stays listed as revoked; revoking twice is fine."""
    made = create_key(session, "auditor")
    revoked = revoke_key(session, made.info.key_id)
    assert revoked.revoked_at is not None
    assert authenticate(session, made.key) is None
    assert revoke_key(session, made.info.key_id).revoked_at == revoked.revoked_at
    assert [(k.key_id, k.revoked_at is not None) for k in list_keys(session)] == [
        (made.info.key_id, True)
    ]


def test_bad_requests(session: Session) -> None:
    """An unknown role or key id is an ApiKeyError naming the field."""
    with pytest.raises(ApiKeyError) as role_error:
        create_key(session, "superuser")
    assert role_error.value.field == "role"
    with pytest.raises(ApiKeyError) as id_error:
        revoke_key(session, "000000000000")
    assert id_error.value.field == "key_id"


@given(api_key_like_texts)
def test_split_key_never_raises(text: str) -> None:
    """split_key takes any text; it answers (12 hex id, non-empty secret) or None."""
    parts = split_key(text)
    if parts is not None:
        key_id, secret = parts
        assert len(key_id) == 12 and set(key_id) <= set("0123456789abcdef") and secret


@pytest.fixture
def cli_url(migrated_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """LEXGATE_DATABASE_URL pointing at a fresh migrated database."""
    monkeypatch.setenv("LEXGATE_DATABASE_URL", migrated_url)
    get_settings.cache_clear()
    yield migrated_url
    get_settings.cache_clear()


def test_cli_create_list_revoke(cli_url: str) -> None:
    """`lexgate apikey create` prints the key once; list shows no secret; revoke works."""
    created = runner.invoke(app, ["apikey", "create", "--role", "checker", "--name", "qa-bot"])
    assert created.exit_code == 0, created.output
    key = created.output.strip().splitlines()[-1]
    engine = make_engine(cli_url)
    with Session(engine) as session:
        info = authenticate(session, key)
    assert info is not None and info.role == "checker" and info.name == "qa-bot"
    listed = runner.invoke(app, ["apikey", "list"])
    assert listed.exit_code == 0 and info.key_id in listed.output and "qa-bot" in listed.output
    assert key.split("_", 2)[2] not in listed.output
    revoked = runner.invoke(app, ["apikey", "revoke", info.key_id])
    assert revoked.exit_code == 0, revoked.output
    with Session(engine) as session:
        assert authenticate(session, key) is None
    engine.dispose()


@pytest.mark.parametrize(
    ("args", "code"),
    [(["apikey", "create", "--role", "root"], 2), (["apikey", "revoke", "000000000000"], 1)],
    ids=["unknown-role", "unknown-key"],
)
def test_cli_errors(cli_url: str, args: list[str], code: int) -> None:
    """Bad requests end with a message and a non-zero exit code, no traceback."""
    result = runner.invoke(app, args)
    assert result.exit_code == code
    assert "error:" in result.output and "Traceback" not in result.output


def test_key_cache_remembers_only_for_its_time() -> None:
    """A cached key is returned until its time is up; ttl 0 caches nothing."""
    from datetime import UTC, datetime

    from web.apikeys import KeyCache
    from web.models import ApiKeyInfo

    info = ApiKeyInfo("0123456789ab", "checker", None, datetime.now(UTC))
    cache = KeyCache(ttl_s=0.2)
    assert cache.get("lgk_0123456789ab_s") is None
    cache.put("lgk_0123456789ab_s", info)
    assert cache.get("lgk_0123456789ab_s") == info
    assert cache.get("lgk_0123456789ab_t") is None
    time.sleep(0.25)
    assert cache.get("lgk_0123456789ab_s") is None
    off = KeyCache(ttl_s=0)
    off.put("lgk_0123456789ab_s", info)
    assert off.get("lgk_0123456789ab_s") is None


def test_key_cache_reads_a_key_once_for_all_who_ask_meanwhile() -> None:
    """Requests asking for a key the cache does not hold share one read; a caller that goes
    away leaves it to the others; a key found is kept, one not found is not; ttl 0 reads for
    every request."""
    import asyncio
    from datetime import UTC, datetime

    from web.apikeys import KeyCache
    from web.models import ApiKeyInfo

    info = ApiKeyInfo("0123456789ab", "checker", None, datetime.now(UTC))
    reads: list[str] = []

    async def run(cache: KeyCache, key: str, found: ApiKeyInfo | None, callers: int) -> list:
        release = asyncio.Event()

        async def read() -> ApiKeyInfo | None:
            reads.append(key)
            await release.wait()
            return found

        asking = [asyncio.create_task(cache.verify(key, read)) for _ in range(callers)]
        await asyncio.sleep(0)
        asking[0].cancel()  # the first caller goes away
        release.set()
        return await asyncio.gather(*asking[1:])

    cache = KeyCache(ttl_s=60)
    assert asyncio.run(run(cache, "lgk_0123456789ab_s", info, 20)) == [info] * 19
    assert reads == ["lgk_0123456789ab_s"] and cache.get("lgk_0123456789ab_s") == info
    reads.clear()
    assert asyncio.run(run(cache, "lgk_0123456789ab_t", None, 5)) == [None] * 4
    assert reads == ["lgk_0123456789ab_t"] and cache.get("lgk_0123456789ab_t") is None
    reads.clear()
    assert asyncio.run(run(KeyCache(ttl_s=0), "lgk_0123456789ab_s", info, 5)) == [info] * 4
    assert len(reads) == 5
