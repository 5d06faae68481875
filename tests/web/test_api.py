"""The HTTP API over the bundled corpus, on SQLite and PostgreSQL: every route, real data."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from legaldb import StatuteRepository
from tests.conftest import SHARED_DIR
from tests.web.conftest import INVENTED, REPEALED, THREE_CITATIONS, VERIFIED, TestClient, bearer
from verifier import check, result_to_json, today
from web.schemas import ArticleDetail, CheckResponse, LawDetail, LawSearchResponse

ANSWERS = SHARED_DIR / "eval" / "flzx_dev_answers.jsonl"


def _real_answers(count: int) -> list[dict[str, Any]]:
    """Every 50th answer of the development set (real model output, several models)."""
    lines = Path(ANSWERS).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[::50][:count]]


def test_check_three_citations(corpus_client: TestClient, corpus_keys: dict[str, str]) -> None:
    """A verified, a repealed and an invented citation get 现行有效, 已废止 and 未能核验."""
    response = corpus_client.post(
        "/api/v1/check",
        json={"answer": THREE_CITATIONS, "as_of": "2024-01-01"},
        headers=bearer(corpus_keys["checker"]),
    )
    assert response.status_code == 200
    body = CheckResponse.model_validate(response.json())
    found = [(c.surface, c.status, c.badge) for c in body.citations]
    assert found == [
        (VERIFIED, "verified", "现行有效"),
        (REPEALED, "deprecated", "已废止"),
        (INVENTED, "unverified", "未能核验"),
    ]
    repealed = body.citations[1]
    assert repealed.facts.repealed_on == "2021-01-01"
    assert [(s.law, s.article) for s in repealed.facts.successors] == [
        ("中华人民共和国民法典", 577)
    ]
    assert body.citations[2].reason == "article_not_found"
    assert body.citations[2].facts.article_count == 1260
    assert body.summary.line == "已校对 3 条 · 现行有效 1 · 已废止 1 · 尚未生效 0 · 未能核验 1"


def test_check_is_the_cli_json(
    corpus_client: TestClient, corpus_keys: dict[str, str], statute_repository: StatuteRepository
) -> None:
    """POST /check answers exactly what `lexgate check --json` prints for the same answer,
    the texts only with with_text (as --with-text)."""
    for item, with_text in zip(_real_answers(12), [False, True] * 6, strict=True):
        response = corpus_client.post(
            "/api/v1/check",
            json={"answer": item["answer"], "as_of": "2023-08-01", "with_text": with_text},
            headers={"X-API-Key": corpus_keys["checker"]},
        )
        assert response.status_code == 200, item["id"]
        result = check(item["answer"], statute_repository, date(2023, 8, 1))
        assert response.json() == result_to_json(result, with_text=with_text), item["id"]
        CheckResponse.model_validate(response.json())  # the documented schema, no extra field


def test_check_defaults_to_today(corpus_client: TestClient, corpus_keys: dict[str, str]) -> None:
    """Without as_of the check is as of today in the configured timezone."""
    response = corpus_client.post(
        "/api/v1/check", json={"answer": VERIFIED}, headers=bearer(corpus_keys["checker"])
    )
    assert response.status_code == 200
    assert response.json()["as_of"] == today("Asia/Shanghai").isoformat()


@pytest.mark.parametrize("role", ["checker", "auditor", "admin"], ids=str)
def test_every_role_may_check_and_read_laws(
    corpus_client: TestClient, corpus_keys: dict[str, str], role: str
) -> None:
    """check and laws belong to the checker role, which auditor and admin include."""
    headers = bearer(corpus_keys[role])
    assert (
        corpus_client.post("/api/v1/check", json={"answer": VERIFIED}, headers=headers).status_code
        == 200
    )
    assert (
        corpus_client.get("/api/v1/laws", params={"q": "民法典"}, headers=headers).status_code
        == 200
    )


def test_search_laws(corpus_client: TestClient, corpus_keys: dict[str, str]) -> None:
    """An exact short name comes first; repealed laws carry their repeal date."""
    headers = bearer(corpus_keys["checker"])
    found = LawSearchResponse.model_validate(
        corpus_client.get("/api/v1/laws", params={"q": "公司法"}, headers=headers).json()
    )
    assert found.query == "公司法"
    assert found.laws[0].name == "中华人民共和国公司法"
    contract = corpus_client.get(
        "/api/v1/laws", params={"q": "合同法", "limit": 3}, headers=headers
    ).json()
    assert len(contract["laws"]) <= 3
    assert contract["laws"][0]["name"] == "中华人民共和国合同法"
    assert contract["laws"][0]["repealed_on"] == "2021-01-01"


def test_law_versions_with_dates(
    corpus_client: TestClient, corpus_keys: dict[str, str], statute_repository: StatuteRepository
) -> None:
    """GET /laws/{id}: every version with its dates, oldest first, as the repository has them."""
    law = statute_repository.resolve("公司法")
    assert law is not None
    response = corpus_client.get(f"/api/v1/laws/{law.id}", headers=bearer(corpus_keys["checker"]))
    assert response.status_code == 200
    detail = LawDetail.model_validate(response.json())
    expected = statute_repository.versions(law.id)
    assert [
        (v.id, v.label, v.promulgated, v.effective_from, v.effective_to) for v in detail.versions
    ] == [(v.id, v.label, v.promulgated, v.effective_from, v.effective_to) for v in expected]
    assert sum(v.in_force_today for v in detail.versions) == 1
    assert detail.repeal is None


def test_repealed_law_names_its_successor(
    corpus_client: TestClient, corpus_keys: dict[str, str], statute_repository: StatuteRepository
) -> None:
    """合同法: repealed on 2021-01-01 by 民法典, which is its successor."""
    law = statute_repository.resolve("合同法")
    assert law is not None
    detail = corpus_client.get(
        f"/api/v1/laws/{law.id}", headers=bearer(corpus_keys["checker"])
    ).json()
    assert detail["repeal"]["repealed_on"] == "2021-01-01"
    assert detail["repeal"]["successor"]["name"] == "中华人民共和国民法典"
    assert not any(v["in_force_today"] for v in detail["versions"])


def test_article_as_in_force_with_its_versions(
    corpus_client: TestClient, corpus_keys: dict[str, str], statute_repository: StatuteRepository
) -> None:
    """公司法第二十条 on 2020-01-01 is the 2018 text; every version shows its own text."""
    law = statute_repository.resolve("公司法")
    assert law is not None
    response = corpus_client.get(
        f"/api/v1/laws/{law.id}/articles/20",
        params={"as_of": "2020-01-01"},
        headers=bearer(corpus_keys["checker"]),
    )
    assert response.status_code == 200
    detail = ArticleDetail.model_validate(response.json())
    in_force = statute_repository.version_in_force(law.id, date(2020, 1, 1))
    assert in_force is not None
    assert detail.in_force is not None and detail.in_force.version.id == in_force.id
    expected = statute_repository.article_text(in_force.id, 20)
    assert expected is not None and detail.in_force.text == expected.text
    assert [v.version.id for v in detail.versions] == [
        v.id for v in statute_repository.versions(law.id)
    ]
    for row in detail.versions:
        assert row.number is not None
        found = statute_repository.article_text(row.version.id, row.number, row.suffix)
        assert found is not None and row.text == found.text
    later = detail.versions[-1]
    assert later.changes is not None
    assert "".join(p.text for p in later.changes if p.op != "delete") == later.text


def test_article_of_a_repealed_law(
    corpus_client: TestClient, corpus_keys: dict[str, str], statute_repository: StatuteRepository
) -> None:
    """合同法第一百零七条 in 2015: the 1999 version (facts only), successor 民法典第五百七十七条."""
    law = statute_repository.resolve("合同法")
    assert law is not None
    detail = corpus_client.get(
        f"/api/v1/laws/{law.id}/articles/107",
        params={"as_of": "2015-06-01"},
        headers=bearer(corpus_keys["checker"]),
    ).json()
    assert detail["in_force"]["version"]["label"] == "1999年"
    assert detail["in_force"]["text"] is None
    assert detail["label"] == "第一百零七条"
    assert [(s["law"], s["article"]) for s in detail["successors"]] == [
        ("中华人民共和国民法典", 577)
    ]
    after = corpus_client.get(
        f"/api/v1/laws/{law.id}/articles/107",
        params={"as_of": "2022-01-01"},
        headers=bearer(corpus_keys["checker"]),
    ).json()
    assert after["in_force"] is None


@pytest.mark.parametrize(
    ("path", "params", "code", "field"),
    [
        ("/api/v1/laws/99999999", {}, "law_not_found", "law_id"),
        ("/api/v1/laws/{civil}/articles/1289", {}, "article_not_found", "number"),
        ("/api/v1/laws/{civil}/articles/5", {"suffix": "之九十九"}, "article_not_found", "number"),
    ],
    ids=["unknown-law", "invented-article", "unknown-suffix"],
)
def test_not_found(
    corpus_client: TestClient,
    corpus_keys: dict[str, str],
    statute_repository: StatuteRepository,
    path: str,
    params: dict[str, str],
    code: str,
    field: str,
) -> None:
    """Unknown laws and articles are 404 with a code naming what is missing."""
    civil = statute_repository.resolve("民法典")
    assert civil is not None
    response = corpus_client.get(
        path.format(civil=civil.id), params=params, headers=bearer(corpus_keys["checker"])
    )
    assert response.status_code == 404
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["field"] == field


def test_health_and_ready(corpus_client: TestClient, statute_repository: StatuteRepository) -> None:
    """healthz is up; readyz reports the statutes loaded; neither needs a key."""
    assert corpus_client.get("/api/v1/healthz").json() == {"status": "ok"}
    ready = corpus_client.get("/api/v1/readyz")
    assert ready.status_code == 200
    assert ready.json()["laws"] == statute_repository.stats()["laws"]


def test_openapi_documents_the_routes(corpus_client: TestClient) -> None:
    """The generated OpenAPI lists every API route with the error schema and the key schemes."""
    spec = corpus_client.get("/openapi.json").json()
    assert set(spec["paths"]) == {
        "/api/v1/healthz",
        "/api/v1/readyz",
        "/api/v1/check",
        "/api/v1/laws",
        "/api/v1/laws/{law_id}",
        "/api/v1/laws/{law_id}/articles/{number}",
        "/api/v1/gate",
        "/api/v1/premise",
        "/api/v1/audit/export",
    }
    assert "ErrorResponse" in spec["components"]["schemas"]
    assert set(spec["components"]["securitySchemes"]) == {"HTTPBearer", "APIKeyHeader"}
