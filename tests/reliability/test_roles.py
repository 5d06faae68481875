"""No one let in: each route against each role, keys hashed, the mapping store never served."""

from __future__ import annotations

import inspect
import io
import zipfile
from datetime import date
from typing import Any

import pytest
import sqlalchemy as sa

from legaldb import make_engine
from tests.reliability.conftest import TestClient, app_routes, audit_counts, bearer
from web import apikeys
from web.tables import ApiKey

# What each role may do, as issue 7 states it (reviewer: the /review queue, issue of the judge).
GRANTS: dict[str, set[str]] = {
    "none": set(),
    "checker": {"check", "gate", "premise", "laws"},
    "auditor": {"check", "gate", "premise", "laws", "audit"},
    "reviewer": {"check", "gate", "premise", "laws", "review"},
    "admin": {"check", "gate", "premise", "laws", "audit", "review", "admin"},
}
# Every route of the app, the permission it needs (None: open to all) and a request for it.
ROUTES: dict[tuple[str, str], tuple[str | None, dict[str, Any]]] = {
    ("GET", "/api/v1/healthz"): (None, {}),
    ("GET", "/api/v1/readyz"): (None, {}),
    ("POST", "/api/v1/check"): ("check", {"json": {"answer": "民法典第一条"}}),
    ("POST", "/api/v1/gate"): ("gate", {"json": {"answer": "民法典第一条"}}),
    ("POST", "/api/v1/premise"): ("premise", {"json": {"question": "民法典怎么规定？"}}),
    ("GET", "/api/v1/laws"): ("laws", {"params": {"q": "民法典"}}),
    ("GET", "/api/v1/laws/{law_id}"): ("laws", {}),
    ("GET", "/api/v1/laws/{law_id}/articles/{number}"): ("laws", {}),
    ("GET", "/api/v1/audit/export"): ("audit", {"params": {"quarter": "2020Q1"}}),
    ("GET", "/"): ("check", {}),
    ("POST", "/"): ("check", {"data": {"answer": "民法典第一条"}}),
    ("GET", "/laws"): ("laws", {}),
    ("GET", "/laws/{law_id}"): ("laws", {}),
    ("GET", "/laws/{law_id}/articles/{number}"): ("laws", {}),
    ("GET", "/audit"): ("audit", {}),
    ("GET", "/audit/pack"): ("audit", {"params": {"quarter": "2020Q1"}}),
    ("GET", "/review"): ("review", {}),
    ("POST", "/review/{review_id}"): ("review", {"data": {"decision": "confirm"}}),
    ("GET", "/login"): (None, {}),
    ("POST", "/login"): (None, {"data": {"key": "wrong"}}),
    ("POST", "/logout"): (None, {}),
    ("GET", "/docs"): (None, {}),
    ("GET", "/openapi.json"): (None, {}),
}
PATH_VALUES = {"law_id": "1", "number": "1", "review_id": "1"}
CASES = [
    (method, path, role)
    for (method, path) in ROUTES
    for role in GRANTS
    if ROUTES[(method, path)][0] is not None
]


def test_every_route_is_in_the_table(gate_client: TestClient) -> None:
    """A new route cannot escape the role table: every endpoint of the app is listed here."""
    served = {route for route in app_routes(gate_client.app)}  # type: ignore[arg-type]
    missing = served - set(ROUTES)
    assert not missing, f"add these routes to ROUTES with their permission: {sorted(missing)}"


@pytest.mark.parametrize(
    ("method", "path", "role"), CASES, ids=[f"{m} {p} {r}" for m, p, r in CASES]
)
def test_route_allows_only_its_roles(
    gate_client: TestClient, gate_keys: dict[str, str], method: str, path: str, role: str
) -> None:
    """Without a key: 401 (API) or the login page; a role lacking the permission: 403."""
    if (method, path) not in set(app_routes(gate_client.app)):  # type: ignore[arg-type]
        pytest.skip("route not served by this build")
    permission, request = ROUTES[(method, path)]
    url = path.format(**PATH_VALUES)
    is_api = path.startswith("/api/")
    headers: dict[str, str] = {}
    gate_client.cookies.clear()
    if role != "none":
        if is_api:
            headers = bearer(gate_keys[role])
        else:
            gate_client.cookies.set("lexgate_key", gate_keys[role])
    try:
        response = gate_client.request(
            method, url, headers=headers, follow_redirects=False, **request
        )
    finally:
        gate_client.cookies.clear()
    assert response.status_code < 500, response.text[:300]
    if role == "none":
        if is_api:
            assert response.status_code == 401
        else:
            assert response.status_code == 303
            assert response.headers["location"].startswith("/login")
    elif permission in GRANTS[role]:
        assert response.status_code not in (401, 403), response.text[:300]
    else:
        assert response.status_code == 403, response.text[:300]


MAPPING_PATHS = [
    "/var/pseudonym-map.sqlite3",
    "/pseudonym-map.sqlite3",
    "/static/../var/pseudonym-map.sqlite3",
    "/static/%2e%2e/%2e%2e/var/pseudonym-map.sqlite3",
    "/static/..%2f..%2fvar%2fpseudonym-map.sqlite3",
    "/static/swagger-ui/..%2f..%2f..%2f..%2fvar/pseudonym-map.sqlite3",
    "/var/open-rounds.sqlite3",
    "/var/pseudonym-map.secret",
    "/var/lexgate.sqlite3",
    "/api/v1/audit/export?quarter=../../var/pseudonym-map.sqlite3",
    "/api/v1/audit/export?quarter=2026Q4%2f..%2f..%2fpseudonym-map",
    "/audit/pack?quarter=../../var/pseudonym-map.sqlite3",
    "/audit/pack?quarter=2026Q4%00.sqlite3",
]


@pytest.mark.parametrize("path", MAPPING_PATHS, ids=MAPPING_PATHS)
def test_the_mapping_store_is_never_served(
    gate_client: TestClient, gate_keys: dict[str, str], path: str
) -> None:
    """No path, however tricked, returns the pseudonym mapping store or the secret (admin key)."""
    gate_client.cookies.set("lexgate_key", gate_keys["admin"])
    try:
        response = gate_client.get(path, headers=bearer(gate_keys["admin"]), follow_redirects=False)
    finally:
        gate_client.cookies.clear()
    assert response.status_code in (400, 403, 404, 422), (response.status_code, response.text[:200])
    assert b"SQLite format 3" not in response.content


def test_no_response_or_record_holds_a_raw_subject_id(
    gate_client: TestClient, gate_keys: dict[str, str], gate_database_url: str
) -> None:
    """A subject id sent to /gate appears in no response and in no audit table."""
    subject = "subject-raw-id-4f1c9e"
    session = "session-raw-id-8b2d71"
    before = audit_counts(gate_database_url)
    response = gate_client.post(
        "/api/v1/gate",
        json={"answer": "《中华人民共和国民法典》第一千零八十七条", "subject_id": subject,
              "session_id": session},
        headers=bearer(gate_keys["checker"]),
    )  # fmt: skip
    assert response.status_code == 200, response.text[:300]
    assert subject not in response.text
    assert audit_counts(gate_database_url)[0] == before[0] + 1
    engine = make_engine(gate_database_url)
    try:
        with engine.connect() as connection:
            for table in ("audit_case", "audit_attempt", "audit_citation"):
                rows = connection.execute(sa.text(f"SELECT * FROM {table}")).all()
                dump = repr(rows)
                assert subject not in dump and session not in dump, table
    finally:
        engine.dispose()
    # The quarter's evidence pack, downloaded by an auditor, names neither.
    quarter = f"{date.today().year}Q{(date.today().month - 1) // 3 + 1}"
    pack = gate_client.get(
        "/api/v1/audit/export", params={"quarter": quarter}, headers=bearer(gate_keys["auditor"])
    )
    assert pack.status_code == 200, pack.text[:300]
    with zipfile.ZipFile(io.BytesIO(pack.content)) as archive:
        names = archive.namelist()
        assert any(name.endswith(".jsonl") for name in names), names
        texts = {name: archive.read(name).decode("utf-8", errors="replace") for name in names}
    assert any("subj_" in text for text in texts.values())  # the cases are there, pseudonymous
    for name, text in texts.items():
        assert subject not in text and session not in text, name


def test_keys_are_stored_hashed(gate_database_url: str, gate_keys: dict[str, str]) -> None:
    """No stored column holds any part of a key's secret; the digest is its SHA-256."""
    engine = make_engine(gate_database_url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(sa.select(ApiKey)).all()
    finally:
        engine.dispose()
    dump = repr(rows)
    for key in gate_keys.values():
        parts = apikeys.split_key(key)
        assert parts is not None
        secret = parts[1]
        assert secret not in dump
        assert apikeys._digest(secret) in dump


def test_keys_are_compared_in_constant_time() -> None:
    """The secret's digest is compared with hmac.compare_digest, also for unknown key ids."""
    source = inspect.getsource(apikeys.authenticate)
    assert "hmac.compare_digest(" in source
    assert "==" not in source.replace("ApiKey.key_id == key_id", "")
