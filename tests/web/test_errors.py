"""Every API error is JSON {"error": {"code", "message", "field"}}: 401, 403, 404, 413, 422, 503, 500."""

from __future__ import annotations

import socket
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi import APIRouter
from sqlalchemy.orm import Session

from legaldb import make_engine
from lexgate.settings import Settings
from tests.conftest import create_postgres_database
from tests.web.conftest import VERIFIED, TestClient, bearer, client_for
from web import create_app, create_key, revoke_key
from web.deps import AuditKeyDep
from web.middleware import BodyLimit
from web.models import ApiKeyInfo

CHECK = "/api/v1/check"


def _error(response: Any) -> dict[str, Any]:
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "field"}
    assert body["error"]["message"]
    return dict(body["error"])


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"json": {}}, "answer"),
        ({"json": {"answer": ""}}, "answer"),
        ({"json": {"answer": 42}}, "answer"),
        ({"json": {"answer": "x", "as_of": "2024-13-01"}}, "as_of"),
        ({"json": {"answer": "x", "as_of": "yesterday"}}, "as_of"),
        ({"json": {"answer": "x", "asof": "2024-01-01"}}, "asof"),
        ({"json": ["answer"]}, "body"),
        ({"content": b'{"answer": ', "headers": {"content-type": "application/json"}}, "body"),
    ],
    ids=["missing", "empty", "not-a-string", "bad-month", "not-a-date", "unknown-field",
         "not-an-object", "not-json"],
)  # fmt: skip
def test_check_422_names_the_field(
    corpus_client: TestClient, corpus_keys: dict[str, str], kwargs: dict[str, Any], field: str
) -> None:
    """A bad request body is 422 with the offending field named."""
    headers = {**bearer(corpus_keys["checker"]), **kwargs.pop("headers", {})}
    response = corpus_client.post(CHECK, headers=headers, **kwargs)
    assert response.status_code == 422
    error = _error(response)
    assert error["code"] == "invalid_input"
    assert error["field"] == field
    assert field in error["message"]


def test_a_form_body_is_told_the_api_takes_json(
    corpus_client: TestClient, corpus_keys: dict[str, str]
) -> None:
    """A form-encoded body (curl -d answer=…) is 422 saying the API takes JSON, naming the type
    it got, not pydantic's "valid dictionary"."""
    response = corpus_client.post(
        CHECK, headers=bearer(corpus_keys["checker"]), data={"answer": "民法典第一条"}
    )
    assert response.status_code == 422
    error = _error(response)
    assert error["field"] == "body"
    assert "the API takes JSON (Content-Type: application/json)" in error["message"]
    assert "application/x-www-form-urlencoded" in error["message"]
    assert "dictionary" not in error["message"]


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/api/v1/laws", "q"),
        ("/api/v1/laws?q=", "q"),
        ("/api/v1/laws?q=x&limit=0", "limit"),
        ("/api/v1/laws/abc", "law_id"),
        ("/api/v1/laws/0", "law_id"),
        ("/api/v1/laws/1/articles/x", "number"),
        ("/api/v1/laws/1/articles/1?as_of=2024-02-30", "as_of"),
        ("/api/v1/laws/1/articles/1?suffix=abc", "suffix"),
    ],
    ids=["no-q", "empty-q", "limit-0", "id-not-int", "id-0", "number-not-int", "bad-day",
         "bad-suffix"],
)  # fmt: skip
def test_laws_422_names_the_field(
    corpus_client: TestClient, corpus_keys: dict[str, str], path: str, field: str
) -> None:
    """Bad query and path parameters are 422 naming the parameter."""
    response = corpus_client.get(path, headers=bearer(corpus_keys["checker"]))
    assert response.status_code == 422
    assert _error(response)["field"] == field


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer nope"}, {"X-API-Key": "lgk_000000000000_nope"},
     {"Authorization": "Basic dXNlcjpwYXNz"}],
    ids=["none", "malformed", "unknown", "basic-auth"],
)  # fmt: skip
def test_401_without_a_valid_key(corpus_client: TestClient, headers: dict[str, str]) -> None:
    """No key, or one that is not ours: 401 with a WWW-Authenticate challenge."""
    for response in (
        corpus_client.post(CHECK, json={"answer": VERIFIED}, headers=headers),
        corpus_client.get("/api/v1/laws", params={"q": "民法典"}, headers=headers),
    ):
        assert response.status_code == 401
        assert _error(response)["code"] == "unauthorized"
        assert response.headers["www-authenticate"] == "Bearer"


def test_a_wrong_secret_for_a_real_key_id_is_401(
    corpus_client: TestClient, corpus_keys: dict[str, str]
) -> None:
    """The key id alone opens nothing: the secret part must match."""
    real = corpus_keys["admin"]
    forged = real[:-4] + ("AAAA" if not real.endswith("AAAA") else "BBBB")
    response = corpus_client.post(CHECK, json={"answer": VERIFIED}, headers=bearer(forged))
    assert response.status_code == 401


@pytest.mark.parametrize("cache_s", [0.0, 0.3], ids=["no-cache", "cache-0.3s"])
def test_revoked_key_is_401(migrated_url: str, cache_s: float) -> None:
    """A revoked key stops working at once, or within LEXGATE_WEB_KEY_CACHE_S."""
    engine = make_engine(migrated_url)
    with Session(engine) as session:
        made = create_key(session, "checker")
    settings = Settings(database_url=migrated_url, web_key_cache_s=cache_s)
    with client_for(settings) as client:
        headers = bearer(made.key)
        assert client.get("/api/v1/laws?q=x", headers=headers).status_code == 503  # no statutes
        with Session(engine) as session:
            revoke_key(session, made.info.key_id)
        time.sleep(cache_s + 0.1)
        response = client.get("/api/v1/laws?q=x", headers=headers)
        assert response.status_code == 401
    engine.dispose()


audit_probe = APIRouter()


@audit_probe.get("/api/v1/audit-probe")
def _audit_probe(key: AuditKeyDep) -> dict[str, str]:
    return {"role": key.role}


@pytest.mark.parametrize(
    ("role", "status"), [("checker", 403), ("auditor", 200), ("admin", 200)], ids=str
)
def test_roles_403(
    corpus_database_url: str, corpus_keys: dict[str, str], role: str, status: int
) -> None:
    """A route needing the audit permission refuses a checker key with 403."""
    app = create_app(Settings(database_url=corpus_database_url))
    app.include_router(audit_probe)
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/api/v1/audit-probe", headers=bearer(corpus_keys[role]))
    assert response.status_code == status
    if status == 403:
        assert _error(response)["code"] == "forbidden"
    else:
        assert response.json() == {"role": role}


def test_unknown_route_and_method(corpus_client: TestClient) -> None:
    """404 and 405 from the router are in the same JSON shape under /api."""
    missing = corpus_client.get("/api/v1/nothing-here")
    assert missing.status_code == 404 and _error(missing)["code"] == "not_found"
    wrong = corpus_client.get(CHECK)
    assert wrong.status_code == 405 and _error(wrong)["code"] == "method_not_allowed"


def test_413_on_declared_length(corpus_client: TestClient, corpus_keys: dict[str, str]) -> None:
    """A body over 256 KB is refused with 413 before the app reads it."""
    answer = "民法典第一条。" * 40_000  # about 840 KB of UTF-8
    response = corpus_client.post(
        CHECK, json={"answer": answer}, headers=bearer(corpus_keys["checker"])
    )
    assert response.status_code == 413
    error = _error(response)
    assert error["code"] == "body_too_large" and error["field"] == "body"


def test_a_body_just_under_the_limit_passes(migrated_url: str) -> None:
    """The limit is a setting; a body under it reaches the app (here: 401, no key)."""
    with client_for(Settings(database_url=migrated_url, web_max_body_bytes=2048)) as client:
        small = client.post(CHECK, content=b'{"answer": "' + b"a" * 1900 + b'"}')
        large = client.post(CHECK, content=b'{"answer": "' + b"a" * 2100 + b'"}')
    assert small.status_code == 401
    assert large.status_code == 413


async def _drive(
    app: Any, chunks: list[bytes], headers: list[tuple[bytes, bytes]]
) -> list[dict[str, Any]]:
    """Run an ASGI app on one POST whose body arrives in chunks; return what it sent."""
    messages = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
                for i, c in enumerate(chunks)]  # fmt: skip
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/api/v1/check", "headers": headers,
             "query_string": b"", "root_path": ""}  # fmt: skip
    await app(scope, receive, send)
    return sent


@pytest.mark.anyio
@pytest.mark.parametrize(
    "headers",
    [[], [(b"content-length", b"10")], [(b"transfer-encoding", b"chunked")]],
    ids=["no-length", "false-length", "chunked"],
)
async def test_413_counts_the_bytes_not_the_header(headers: list[tuple[bytes, bytes]]) -> None:
    """Chunks adding up past the limit are refused whatever Content-Length claims."""
    from web.handlers import reject_body

    reached: list[bytes] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append((await receive())["body"])

    limited = BodyLimit(app, max_bytes=1024, reject=reject_body)
    sent = await _drive(limited, [b"x" * 600, b"x" * 600], headers)
    assert reached == []
    assert sent[0]["status"] == 413
    sent = await _drive(limited, [b"x" * 500, b"x" * 500], headers)
    assert reached == [b"x" * 1000]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(params=["sqlite", "postgresql"])
def down_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """A database that cannot be reached: a SQLite path that is a directory, a closed port."""
    if request.param == "sqlite":
        (tmp_path / "a-directory").mkdir()
        return f"sqlite:///{tmp_path / 'a-directory'}"
    return f"postgresql+psycopg://nobody@127.0.0.1:{_closed_port()}/nothing?connect_timeout=2"


def test_503_when_the_database_is_down(down_url: str) -> None:
    """The server starts anyway; readyz, check and laws answer 503, never a bare 500."""
    with client_for(Settings(database_url=down_url)) as client:
        assert client.get("/api/v1/healthz").status_code == 200
        for response in (
            client.get("/api/v1/readyz"),
            client.post(CHECK, json={"answer": VERIFIED}, headers=bearer("lgk_000000000000_x")),
            client.get("/api/v1/laws?q=x", headers={"X-API-Key": "lgk_000000000000_x"}),
        ):
            assert response.status_code == 503
            assert _error(response)["code"] == "database_unavailable"


@pytest.fixture
def droppable_postgres(postgres_admin_url: str) -> Iterator[tuple[str, str]]:
    """A fresh PostgreSQL database and the admin URL that can drop it."""
    name = f"drop_{uuid.uuid4().hex[:12]}"
    yield create_postgres_database(postgres_admin_url, name), name


def test_503_when_the_database_goes_away(
    droppable_postgres: tuple[str, str], postgres_admin_url: str
) -> None:
    """A database dropped under a running server turns requests into 503."""
    from legaldb import upgrade

    url, name = droppable_postgres
    upgrade(url)
    engine = make_engine(url)
    with Session(engine) as session:
        key = create_key(session, "checker").key
    engine.dispose()
    with client_for(Settings(database_url=url)) as client:
        empty = client.get("/api/v1/readyz")
        assert empty.status_code == 503 and _error(empty)["code"] == "no_statutes"
        admin = sa.create_engine(postgres_admin_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE "{name}" WITH (FORCE)'))
        admin.dispose()
        for response in (
            client.get("/api/v1/readyz"),
            client.post(CHECK, json={"answer": VERIFIED}, headers=bearer(key)),
        ):
            assert response.status_code == 503
            assert _error(response)["code"] == "database_unavailable"


crash_probe = APIRouter()


@crash_probe.get("/api/v1/crash-probe")
def _crash_probe(key: AuditKeyDep) -> ApiKeyInfo:
    raise RuntimeError("a bug")


def test_500_is_json_too(corpus_database_url: str, corpus_keys: dict[str, str]) -> None:
    """An unexpected exception is a 500 in the error shape, without the exception text."""
    app = create_app(Settings(database_url=corpus_database_url))
    app.include_router(crash_probe)
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/api/v1/crash-probe", headers=bearer(corpus_keys["admin"]))
    assert response.status_code == 500
    error = _error(response)
    assert error["code"] == "internal_error"
    assert "a bug" not in response.text
