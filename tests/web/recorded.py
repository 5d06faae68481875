"""Fixtures of the gate and audit tests: a fresh writable corpus database per test, both backends.

The corpus is imported once per backend into a template; each test gets a copy (a file copy on
SQLite, CREATE DATABASE … TEMPLATE on PostgreSQL), so recorded cases never leak between tests.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import sqlalchemy as sa
from pydantic import SecretStr
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from audit import Pseudonymizer
from audit.signing import create_signing_key
from legaldb import make_engine
from lexgate.settings import Settings
from tests.conftest import BACKENDS, STORE_KEY, new_corpus_database
from tests.web.conftest import TestClient, client_for
from web import create_key
from web.models import ROLES
from web.recording import private_stores
from web.rounds import RoundStore

if TYPE_CHECKING:
    from legaldb.models import CorpusRead

AUDIT_SECRET = "the web audit tests' secret, 32b"


@pytest.fixture(scope="session", params=BACKENDS)
def corpus_template(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    bundled_corpus: CorpusRead,
) -> str:
    """A database holding the bundled corpus, only ever copied (no connection stays open)."""
    return new_corpus_database(request, tmp_path_factory, bundled_corpus, "template")


def copy_database(template_url: str, tmp_path: Path) -> str:
    if template_url.startswith("sqlite:///"):
        target = tmp_path / "gate.sqlite3"
        shutil.copyfile(template_url.removeprefix("sqlite:///"), target)
        return f"sqlite:///{target}"
    base, _, query = template_url.partition("?")
    template = base.rsplit("/", 1)[1]
    name = f"g_{uuid.uuid4().hex[:16]}"
    admin = sa.create_engine(template_url, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
    admin.dispose()
    url = base.rsplit("/", 1)[0] + "/" + name
    return f"{url}?{query}" if query else url


@dataclass(frozen=True)
class GatedApp:
    """A test client over a fresh corpus database, a key per role, and what records go through."""

    client: TestClient
    keys: dict[str, str]
    settings: Settings
    engine: Engine
    pseudonymizer: Pseudonymizer


def gate_settings(database_url: str, tmp_path: Path) -> Settings:
    """Settings with a fixed audit secret and private stores under tmp_path."""
    return Settings(
        database_url=database_url,
        audit_secret=SecretStr(AUDIT_SECRET),
        mapping_store_path=tmp_path / "private" / "pseudonym-map.sqlite3",
        web_round_store_path=tmp_path / "private" / "open-rounds.sqlite3",
        audit_signing_key_path=tmp_path / "private" / "audit-signing-key.pem",
        store_key=SecretStr(STORE_KEY),
    )


def round_store(app: GatedApp) -> RoundStore:
    """The round store the app keeps its rounds in (a file on SQLite, the database's table on
    PostgreSQL), opened anew."""
    return private_stores(app.settings, app.engine)[1]


@pytest.fixture
def gated_app(corpus_template: str, tmp_path: Path) -> Iterator[GatedApp]:
    """The app over a writable copy of the corpus database (audit records allowed)."""
    url = copy_database(corpus_template, tmp_path)
    engine = make_engine(url)
    keys: dict[str, str] = {}
    with Session(engine) as session:
        for role in ROLES:
            keys[role] = create_key(session, role, name=f"gate-{role}").key
    settings = gate_settings(url, tmp_path)
    create_signing_key(settings.audit_signing_key_path)  # as `lexgate audit init` does
    with client_for(settings) as client:
        yield GatedApp(client, keys, settings, engine, Pseudonymizer(AUDIT_SECRET.encode(), "k1"))
    engine.dispose()
