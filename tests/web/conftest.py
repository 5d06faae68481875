"""Web fixtures: apps over the corpus database (both backends), keys per role, fresh databases."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session

from legaldb import make_engine, upgrade
from lexgate.settings import Settings
from web import create_app, create_key
from web.models import ROLES
from web.tables import ApiKey

if TYPE_CHECKING:
    from legaldb.models import CorpusRead

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette prefers httpx2 to httpx; httpx works
    from fastapi.testclient import TestClient

# Three citations of the issue: in force, repealed (合同法, 2021), invented (民法典 has 1,260).
VERIFIED = "《中华人民共和国民法典》第一千零八十七条"
REPEALED = "《合同法》第一百零七条"
INVENTED = "民法典第一千二百八十九条"
THREE_CITATIONS = (
    f"根据{VERIFIED}，离婚时夫妻的共同财产由双方协议处理。"
    f"依照{REPEALED}，当事人一方不履行合同义务的，应当承担违约责任。"
    f"另据{INVENTED}的规定，应当赔偿。<script>alert('x')</script>"
)


@pytest.fixture(scope="session")
def corpus_keys(corpus_database_url: str) -> Iterator[dict[str, str]]:
    """One API key per role in the corpus database (removed at the end of the session)."""
    engine = make_engine(corpus_database_url)
    created: list[str] = []
    keys: dict[str, str] = {}
    with Session(engine) as session:
        for role in ROLES:
            made = create_key(session, role, name=f"test-{role}")
            keys[role] = made.key
            created.append(made.info.key_id)
    yield keys
    with engine.begin() as connection:
        connection.execute(sa.delete(ApiKey).where(ApiKey.key_id.in_(created)))
    engine.dispose()


@pytest.fixture(scope="session")
def corpus_client(corpus_database_url: str, corpus_keys: dict[str, str]) -> Iterator[TestClient]:
    """A test client of the app over the corpus database (API keys required everywhere)."""
    app = create_app(Settings(database_url=corpus_database_url))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def bearer(key: str) -> dict[str, str]:
    """The Authorization header for a key."""
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def migrated_url(database_url: str) -> str:
    """A fresh database on each backend, migrated, with no statutes."""
    upgrade(database_url)
    return database_url


def client_for(settings: Settings) -> TestClient:
    """A test client (enter it with `with`) that turns errors into responses."""
    return TestClient(create_app(settings), raise_server_exceptions=False)


# --- A real server: `lexgate serve` on a loopback port, over its own SQLite corpus database ---

REPO_ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("LEXGATE_SCREENSHOT_DIR", REPO_ROOT / "var" / "screenshots"))


@dataclass(frozen=True)
class LiveServer:
    """A running `lexgate serve`: its base URL, a checker key, its database URL."""

    url: str
    port: int
    checker_key: str
    database_url: str


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def live_database_url(tmp_path_factory: pytest.TempPathFactory, bundled_corpus: CorpusRead) -> str:
    """A SQLite database with the bundled corpus, for the live server (writable: keys)."""
    from legaldb import import_corpus, read_repealed

    url = f"sqlite:///{tmp_path_factory.mktemp('live') / 'live.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    try:
        import_corpus(engine, bundled_corpus, repealed=read_repealed())
    finally:
        engine.dispose()
    return url


@pytest.fixture(scope="session")
def live_server(live_database_url: str) -> Iterator[LiveServer]:
    """`lexgate serve` (uvicorn) on 127.0.0.1 in a subprocess, ready when /readyz says so."""
    engine = make_engine(live_database_url)
    with Session(engine) as session:
        key = create_key(session, "checker", name="browser").key
    engine.dispose()
    port = free_port()
    env = {**os.environ, "LEXGATE_DATABASE_URL": live_database_url, "LEXGATE_WEB_WORKERS": "1"}
    command = [str(Path(sys.executable).parent / "lexgate"), "serve", "--port", str(port)]
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    f"lexgate serve exited: {process.stdout.read() if process.stdout else ''}"
                )
            try:
                if httpx.get(f"{url}/api/v1/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("lexgate serve did not become ready in 120 s")
            time.sleep(0.3)
        yield LiveServer(url=url, port=port, checker_key=key, database_url=live_database_url)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# The gate and audit tests' fresh writable corpus databases (tests/web/recorded.py).
from tests.web.recorded import corpus_template, gated_app  # noqa: E402, F401
