"""POST /api/v1/gate with the model judge configured (a real loopback chat server)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from audit.review import pending
from legaldb import make_engine
from tests.llm_server import LLMServer, Reply
from tests.web.conftest import bearer, client_for
from tests.web.recorded import copy_database, gate_settings
from web import create_key

# The article is real and in force; the conclusion drawn from it is the opposite.
CONTRADICTED = (
    "依据《中华人民共和国民法典》第一千零八十七条，离婚时夫妻的共同财产由双方协议处理，"
    "因此法院不得判决分割。另依《广东省物业管理条例》第十二条，物业服务人应当及时维修。"
)


def logs(**probabilities: float) -> dict[str, float]:
    return {token: math.log(p) for token, p in probabilities.items()}


@pytest.fixture
def judged_app(
    corpus_template: str, tmp_path: Path, llm_server: LLMServer
) -> Iterator[tuple[object, str, object]]:
    """The app with LEXGATE_JUDGE_ENABLED on the loopback server, a checker key, the engine."""
    url = copy_database(corpus_template, tmp_path)
    engine = make_engine(url)
    with Session(engine) as session:
        key = create_key(session, "checker", name="judge-test").key
    settings = gate_settings(url, tmp_path).model_copy(
        update={
            "judge_enabled": True,
            "judge_base_url": llm_server.base_url,
            "judge_model": "judge-model",
            "llm_max_retries": 0,
        }
    )
    with client_for(settings) as client:
        yield client, key, engine
    engine.dispose()


def test_a_confident_contradiction_reruns_with_the_article_text(
    judged_app: tuple, llm_server: LLMServer
) -> None:
    """Below the pass rate only because of a boundary failure, the judge's contradiction makes
    the gate rerun (instead of pass_boundary), with the real article text as the fact."""
    client, key, engine = judged_app
    llm_server.script(Reply.chat("B", top_logprobs=logs(B=0.92, A=0.08)))
    response = client.post(
        "/api/v1/gate",
        json={"answer": CONTRADICTED, "as_of": "2024-01-01", "session_id": "j-1"},
        headers=bearer(key),
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["decision"] == "rerun"
    assert "claim_contradicted" in {f["signal"] for f in body["failures"]}
    assert any("由人民法院根据财产的具体情况" in f["text"] for f in body["facts"])
    assert pending(engine) == []


def test_an_unsure_judgement_goes_to_the_review_queue(
    judged_app: tuple, llm_server: LLMServer
) -> None:
    """Confidence under the threshold decides nothing and queues the citation for a person."""
    client, key, engine = judged_app
    llm_server.script(Reply.chat("B", top_logprobs=logs(B=0.55, A=0.45)))
    response = client.post(
        "/api/v1/gate",
        json={"answer": CONTRADICTED, "as_of": "2024-01-01", "session_id": "j-2"},
        headers=bearer(key),
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["decision"] == "pass_boundary"
    [item] = pending(engine)
    assert item.case_id == body["case_id"]
    assert "法院不得判决分割" in item.claim
