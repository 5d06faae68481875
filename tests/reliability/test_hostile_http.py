"""Hostile input on every endpoint: a clear 4xx or a correct result, never a 5xx, never a hang."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
import sqlalchemy as sa

from legaldb import make_engine
from legaldb.orm import Law
from tests.reliability.conftest import TestClient, assert_clean, audit_counts, bearer, timed

CIVIL_CODE = "《中华人民共和国民法典》"
MB = 1024 * 1024


def utf8_json(payload: object) -> bytes:
    """JSON with the Chinese as UTF-8 bytes (3 per character), as clients send it."""
    return json.dumps(payload, ensure_ascii=False).encode("utf-8")


@dataclass(frozen=True)
class Hostile:
    """One hostile request and the statuses that are a correct answer to it."""

    method: str
    path: str
    expect: frozenset[int]
    json_body: object = None
    content: bytes | None = None
    data: dict[str, str] | None = None
    params: dict[str, str] | None = None
    page: bool = False  # sent with the login cookie instead of the Authorization header
    headers: dict[str, str] = field(default_factory=dict)


def api(method: str, path: str, *expect: int, **kwargs: Any) -> Hostile:
    return Hostile(method, path, frozenset(expect), **kwargs)


def page(method: str, path: str, *expect: int, **kwargs: Any) -> Hostile:
    return Hostile(method, path, frozenset(expect), page=True, **kwargs)


JSON = {"content-type": "application/json"}
ANSWERS: dict[str, tuple[bytes, frozenset[int]]] = {
    "empty": (b"", frozenset({422})),
    "empty-object": (b"{}", frozenset({422})),
    "empty-answer": (utf8_json({"answer": ""}), frozenset({422})),
    "whitespace": (utf8_json({"answer": " \n\t\u3000 "}), frozenset({200, 422})),
    "10MB": (b'{"answer": "' + b"a" * (10 * MB) + b'"}', frozenset({413})),
    "invalid-utf8": (b'{"answer": "\xff\xfe\x80\xc3("}', frozenset({400, 422})),
    "nul-control": (
        utf8_json({"answer": f"根据\x00{CIVIL_CODE}\x01第一条\x1b\x7f"}),
        frozenset({200}),
    ),
    "nested-brackets": (utf8_json({"answer": "《《〈" * 25_000}), frozenset({200})),
    "unbalanced": (
        utf8_json({"answer": "《" * 40_000 + "民法典" + "〉" * 30_000}),
        frozenset({200}),
    ),
    "di-80k": (utf8_json({"answer": "第" * 80_000}), frozenset({200})),
    "di-1MB": (utf8_json({"answer": "第" * (MB // 3 + 1)}), frozenset({413})),
    "feb-30": (utf8_json({"answer": "民法典第一条", "as_of": "2023-02-30"}), frozenset({422})),
    "year-99999": (utf8_json({"answer": "民法典第一条", "as_of": "99999-01-01"}), frozenset({422})),
    "year-9999": (utf8_json({"answer": "民法典第一条", "as_of": "9999-12-31"}), frozenset({200})),
    "huge-article": (
        utf8_json({"answer": f"{CIVIL_CODE}第九九九九九九九九九条"}),
        frozenset({200}),
    ),
    "huge-arabic": (utf8_json({"answer": f"{CIVIL_CODE}第{'9' * 4000}条"}), frozenset({200})),
    "int32-overflow": (
        utf8_json({"answer": f"{CIVIL_CODE}第2147483648条第99999999999款"}),
        frozenset({200}),
    ),
    "huge-range": (
        utf8_json({"answer": f"{CIVIL_CODE}第一条至第九九九九九九九条"}),
        frozenset({200}),
    ),
    "long-law-name": (
        utf8_json({"answer": f"《{'中华人民共和国' * 200}法》第一条"}),
        frozenset({200}),
    ),
    "many-citations": (
        utf8_json({"answer": f"{CIVIL_CODE}第一千零八十七条、" * 2_000}),
        frozenset({200}),
    ),
    "sql-html": (
        utf8_json({"answer": "《民法典'; DROP TABLE law;--》第一条<script>alert(1)</script>"}),
        frozenset({200}),
    ),
    "not-an-object": (b"[1, 2]", frozenset({422})),
    "answer-not-string": (b'{"answer": ["x"]}', frozenset({422})),
    "deep-json": (b"[" * 50_000 + b"]" * 50_000, frozenset({400, 422})),
}
CASES: dict[str, Hostile] = {}
for _name, (_body, _expect) in ANSWERS.items():
    CASES[f"check-{_name}"] = api("POST", "/api/v1/check", *_expect, content=_body, headers=JSON)
    CASES[f"gate-{_name}"] = api("POST", "/api/v1/gate", *_expect, content=_body, headers=JSON)
CASES |= {
    "premise-empty": api("POST", "/api/v1/premise", 422, json_body={"question": ""}),
    "premise-nested": api(
        "POST", "/api/v1/premise", 200, json_body={"question": "《《〈" * 20_000}
    ),
    "premise-sql": api("POST", "/api/v1/premise", 200, json_body={"question": "《x' OR 1=1--》"}),
    "premise-feb-30": api(
        "POST", "/api/v1/premise", 422, json_body={"question": "民法典", "as_of": "2023-02-30"}
    ),
    "gate-bad-attempt": api(
        "POST", "/api/v1/gate", 409, 422, json_body={"answer": "民法典第一条", "attempt": 10**12}
    ),
    "gate-session-tricks": api(
        "POST",
        "/api/v1/gate",
        200,
        409,
        422,
        json_body={
            "answer": "民法典第一条",
            "session_id": "../../etc\x00",
            "subject_id": "'; DROP TABLE audit_case;--",
        },
    ),
    "search-sql": api("GET", "/api/v1/laws", 200, params={"q": "' OR 1=1 --"}),
    "search-like-wildcards": api("GET", "/api/v1/laws", 200, params={"q": "%_%"}),
    "search-html": api("GET", "/api/v1/laws", 200, params={"q": "<script>alert(1)</script>"}),
    "search-nul": api("GET", "/api/v1/laws?q=%00%01", 200),
    "search-bad-utf8": api("GET", "/api/v1/laws?q=%ff%fe", 200, 422),
    "search-whitespace": api("GET", "/api/v1/laws", 200, 422, params={"q": " \t "}),
    "search-empty": api("GET", "/api/v1/laws", 422, params={"q": ""}),
    "search-too-long": api("GET", "/api/v1/laws", 422, params={"q": "法" * 5_000}),
    "search-brackets": api("GET", "/api/v1/laws", 200, params={"q": "《《〈" * 60}),
    "law-huge-id": api("GET", "/api/v1/laws/99999999999999999999999", 404, 422),
    "law-int64-edge": api("GET", "/api/v1/laws/9223372036854775808", 404, 422),
    "law-negative": api("GET", "/api/v1/laws/-1", 422),
    "law-not-a-number": api("GET", "/api/v1/laws/1%20OR%201=1", 422),
    "article-huge": api("GET", "/api/v1/laws/1/articles/999999999999", 422),
    "article-feb-30": api("GET", "/api/v1/laws/1/articles/1", 422, params={"as_of": "2023-02-30"}),
    "article-year-99999": api(
        "GET", "/api/v1/laws/1/articles/1", 422, params={"as_of": "99999-01-01"}
    ),
    "article-year-1": api(
        "GET", "/api/v1/laws/1/articles/1", 200, 404, params={"as_of": "0001-01-01"}
    ),
    "article-suffix": api(
        "GET", "/api/v1/laws/1/articles/1", 404, params={"suffix": "之" + "九" * 500}
    ),
    "page-check-nul": page(
        "POST", "/", 200, 422, data={"answer": "\x00" * 10, "as_of": "2023-02-30"}
    ),
    "page-check-year-99999": page(
        "POST", "/", 422, data={"answer": "民法典第一条", "as_of": "99999-01-01"}
    ),
    "page-check-bad-utf8": page(
        "POST",
        "/",
        422,
        content=b"answer=%ff%fe\xff",
        headers={"content-type": "application/x-www-form-urlencoded"},
    ),
    "page-check-10MB": page("POST", "/", 413, data={"answer": "第" * (10 * MB // 3)}),
    "page-check-brackets": page("POST", "/", 200, data={"answer": "《《〈" * 5_000}),
    "page-check-many-fields": page(
        "POST",
        "/",
        422,
        content=b"&".join([b"a=1"] * 1000),
        headers={"content-type": "application/x-www-form-urlencoded"},
    ),
    "page-search-bad-utf8": page("GET", "/laws?q=%ff", 200, 422),
    "page-law-huge-version": page("GET", "/laws/1", 404, 422, params={"version": "9" * 30}),
    "page-article-year-1": page(
        "GET", "/laws/1/articles/1", 200, 404, params={"as_of": "0001-01-01"}
    ),
    "static-dotdot": page("GET", "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd", 404),
    "static-encoded-slash": page("GET", "/static/..%2f..%2f..%2fetc/passwd", 404),
    "static-swagger-dotdot": page("GET", "/static/swagger-ui/..%2f..%2f..%2fpyproject.toml", 404),
    "login-open-redirect": page("POST", "/login", 401, data={"key": "x", "next": "//evil.example"}),
    "login-nul-key": page("POST", "/login", 401, data={"key": "lgk_" + "\x00" * 20}),
    "export-quarter-dotdot": api(
        "GET", "/api/v1/audit/export", 422, params={"quarter": "../../etc/passwd"}
    ),
    "export-quarter-nul": api("GET", "/api/v1/audit/export", 422, params={"quarter": "2026Q4\x00"}),
    "export-quarter-9": api("GET", "/api/v1/audit/export", 422, params={"quarter": "2026Q9"}),
    "export-quarter-year-99999": api(
        "GET", "/api/v1/audit/export", 422, params={"quarter": "99999Q1"}
    ),
    "export-quarter-year-0": api(
        "GET", "/api/v1/audit/export", 200, 422, params={"quarter": "0000Q1"}
    ),
    "export-quarter-far": api(
        "GET", "/api/v1/audit/export", 200, 422, params={"quarter": "9999Q4"}
    ),
    "export-quarter-missing": api("GET", "/api/v1/audit/export", 422),
    "page-pack-dotdot": page("GET", "/audit/pack", 422, params={"quarter": "../../x"}),
    "page-pack-far": page("GET", "/audit/pack", 200, 422, params={"quarter": "9999Q4"}),
    "review-huge-id": page(
        "POST", "/review/99999999999999999999", 303, 404, 422, data={"decision": "x"}
    ),
}


def _send(client: TestClient, case: Hostile, key: str) -> Any:
    headers = dict(case.headers)
    if case.page:
        client.cookies.set("lexgate_key", key)
    else:
        client.cookies.clear()
        headers |= bearer(key)
    kwargs: dict[str, Any] = {"headers": headers, "params": case.params, "follow_redirects": False}
    if case.json_body is not None:
        kwargs["json"] = case.json_body
    elif case.content is not None:
        kwargs["content"] = case.content
    elif case.data is not None:
        kwargs["data"] = case.data
    try:
        return timed(lambda: client.request(case.method, case.path, **kwargs))
    finally:
        client.cookies.clear()


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_hostile_request(gate_client: TestClient, gate_keys: dict[str, str], case: Hostile) -> None:
    """Each hostile request gets one of its expected statuses in bounded time, never a 5xx."""
    response, elapsed = _send(gate_client, case, gate_keys["admin"])
    assert_clean(response, elapsed)
    assert response.status_code in case.expect, (response.status_code, response.text[:300])


def test_sql_in_search_finds_nothing_and_harms_nothing(
    gate_client: TestClient, gate_keys: dict[str, str], gate_database_url: str
) -> None:
    """SQL in q is a name that matches nothing; the law table is whole afterwards."""
    engine = make_engine(gate_database_url)
    with engine.connect() as connection:
        before = connection.execute(sa.select(sa.func.count()).select_from(Law)).scalar_one()
    for q in ("'; DELETE FROM law;--", "民法典' OR '1'='1", "%"):
        response = gate_client.get(
            "/api/v1/laws", params={"q": q}, headers=bearer(gate_keys["checker"])
        )
        assert response.status_code == 200 and response.json()["laws"] == [], q
    with engine.connect() as connection:
        after = connection.execute(sa.select(sa.func.count()).select_from(Law)).scalar_one()
    engine.dispose()
    assert after == before > 0


def test_html_in_an_answer_is_escaped_on_the_page(
    gate_client: TestClient, gate_keys: dict[str, str]
) -> None:
    """An answer carrying <script> comes back as text on the check page, never as markup."""
    gate_client.cookies.set("lexgate_key", gate_keys["checker"])
    try:
        response = gate_client.post(
            "/", data={"answer": f"{CIVIL_CODE}第一条<script>alert(1)</script>"}
        )
    finally:
        gate_client.cookies.clear()
    assert response.status_code == 200
    assert "<script>alert(1)</script>" not in response.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in response.text


def test_every_gate_answered_200_is_recorded(
    gate_client: TestClient, gate_keys: dict[str, str], gate_database_url: str
) -> None:
    """The hostile answers the gate accepted are in the audit trail: one case each, none half."""
    before = audit_counts(gate_database_url)
    accepted = 0
    cited = 0
    for name, (body, _expect) in ANSWERS.items():
        if name == "10MB":
            continue
        response = gate_client.post(
            "/api/v1/gate", content=body, headers={**JSON, **bearer(gate_keys["checker"])}
        )
        assert response.status_code < 500, (name, response.text[:300])
        if response.status_code == 200:
            accepted += 1
            cited += response.json()["counts"]["citations"]
    cases, attempts, citations = audit_counts(gate_database_url)
    assert accepted >= sum(expect == {200} for _body, expect in ANSWERS.values())
    assert (cases - before[0], attempts - before[1], citations - before[2]) == (
        accepted,
        accepted,
        cited,
    )
