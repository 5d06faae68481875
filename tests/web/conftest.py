"""Web fixtures: apps over the corpus database (both backends), keys per role, fresh databases."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session

from legaldb import make_engine, upgrade
from legaldb.orm import ApiKey
from lexgate.settings import Settings
from web import create_app, create_key
from web.models import ROLES

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
