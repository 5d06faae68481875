"""Reliability fixtures: the web fixtures (corpus apps, keys per role) and response checks."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from sqlalchemy.orm import Session

from audit.tables import AuditAttempt, AuditCase, AuditCitation
from legaldb import make_engine
from lexgate.settings import Settings
from tests.conftest import BACKENDS, STORE_KEY, new_corpus_database
from tests.web.conftest import bearer, corpus_client, corpus_keys  # noqa: F401 (fixtures)
from web import create_app, create_key
from web.models import ROLES

if TYPE_CHECKING:
    from legaldb.models import CorpusRead

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette prefers httpx2 to httpx; httpx works
    from fastapi.testclient import TestClient

# A generous guard against hangs, not a speed figure (benchmarks measure speed).
REQUEST_BOUND_S = 10.0


def app_routes(app: FastAPI) -> Iterator[tuple[str, str]]:
    """(method, path) of every endpoint of the app, HEAD left out, mounts (static) left out."""
    for route in app.routes:
        contexts: Callable[[], Iterator[object]] | None = getattr(
            route, "effective_route_contexts", None
        )
        entries: list[object] = list(contexts()) if contexts is not None else [route]
        for entry in entries:
            methods = getattr(entry, "methods", None)
            path = getattr(entry, "path", None)
            if not methods or path is None:  # mounts (static files) have no methods
                continue
            for method in sorted(methods - {"HEAD"}):
                yield method, path


def assert_clean(response: httpx.Response, elapsed_s: float) -> None:
    """Never a 5xx; an API error is our JSON shape; the answer came within the bound."""
    assert response.status_code < 500, (response.status_code, response.text[:300])
    assert elapsed_s < REQUEST_BOUND_S, f"{elapsed_s:.1f} s"
    path = response.request.url.path
    if response.status_code >= 400 and (path.startswith("/api/") or path == "/openapi.json"):
        error = response.json()["error"]
        assert error["code"] and error["message"], error


def timed(call: Callable[[], httpx.Response]) -> tuple[httpx.Response, float]:
    """The response of call() and the seconds it took."""
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


# --- A writable corpus database per backend, for the gate (it records into the audit tables) ---


@pytest.fixture(scope="session", params=BACKENDS)
def gate_database_url(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    bundled_corpus: CorpusRead,
) -> str:
    """Its own database with the bundled corpus (the shared corpus database is read-only)."""
    return new_corpus_database(request, tmp_path_factory, bundled_corpus, "gate")


def private_settings(database_url: str, directory: Path, **overrides: object) -> Settings:
    """Settings over database_url with the audit secret and private stores under directory."""
    values: dict[str, object] = {
        "database_url": database_url,
        "mapping_store_path": directory / "pseudonym-map.sqlite3",
        "web_round_store_path": directory / "open-rounds.sqlite3",
        "audit_secret": "reliability-test-secret-0123456789",
        "store_key": STORE_KEY,
        **overrides,
    }
    return Settings.model_validate(values)


@pytest.fixture(scope="session")
def gate_keys(gate_database_url: str) -> dict[str, str]:
    """One API key per role in the gate database."""
    engine = make_engine(gate_database_url)
    keys: dict[str, str] = {}
    try:
        with Session(engine) as session:
            for role in ROLES:
                keys[role] = create_key(session, role, name=f"reliability-{role}").key
    finally:
        engine.dispose()
    return keys


@pytest.fixture(scope="session")
def gate_client(
    gate_database_url: str, gate_keys: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    """A test client of the app over the gate database (errors become responses)."""
    settings = private_settings(gate_database_url, tmp_path_factory.mktemp("private"))
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        yield client


def audit_counts(database_url: str) -> tuple[int, int, int]:
    """(cases, attempts, citations) recorded in the audit tables."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            return tuple(  # type: ignore[return-value]
                connection.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
                for table in (AuditCase.__table__, AuditAttempt.__table__, AuditCitation.__table__)
            )
    finally:
        engine.dispose()
