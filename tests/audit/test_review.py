"""The judge's review queue on both backends: queued from a real gated answer judged by a model
on loopback, decided by a reviewer, carried into the evidence pack."""

from __future__ import annotations

import json
import math
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

import gate
from audit import export_pack, record, record_result, verify_pack
from audit.errors import AlreadyDecidedError, ReviewError, ReviewNotFoundError
from audit.mapping_store import MappingStore
from audit.pseudonyms import Pseudonymizer
from audit.review import decide, enqueue, get, pending
from gate import assess_answer
from gate.models import GateResult, RoundRecord
from legaldb import StatuteRepository
from lexgate.llm import ClientOptions, OpenAIJudge, OpenAIRegenerator
from tests.audit.conftest import AS_OF, ONLY_SQLITE_STATUTES, PHONE, ZONE
from tests.llm_server import LLMServer, Reply
from verifier.models import CheckResult

pytestmark = ONLY_SQLITE_STATUTES

RECORDED = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
DECIDED = datetime(2026, 11, 3, 10, 0, tzinfo=UTC)
# Two judged claims: the reversed 个人信息保护法 rule, and a 民法典 one naming a phone number.
ANSWER = (
    "个人撤回同意后，撤回前的处理活动也随之无效（《中华人民共和国个人信息保护法》第十五条第二款）。\n"
    f"请拨打{PHONE}咨询，离婚时夫妻的共同财产由双方协议处理（《中华人民共和国民法典》第一千零八十七条）。"
)
UNSURE = {"B": math.log(0.6), "A": math.log(0.3), "C": math.log(0.1)}
SURE = {"A": math.log(0.95), "C": math.log(0.05)}


@pytest.fixture
def judge(llm_server: LLMServer) -> Iterator[OpenAIJudge]:
    with OpenAIRegenerator(
        base_url=llm_server.base_url, model="judge-m", options=ClientOptions(max_retries=0)
    ) as client:
        yield OpenAIJudge(client, top_logprobs=5)


def judged_case(
    engine: Engine,
    repo: StatuteRepository,
    server: LLMServer,
    judge: OpenAIJudge,
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
    *replies: Reply,
) -> tuple[str, CheckResult, GateResult]:
    """The answer judged (replies in citation order), recorded as a case."""
    server.script(*replies)
    assessment = assess_answer(ANSWER, repo=repo, judge=judge, as_of=AS_OF)
    case_id = record_result(
        engine,
        ANSWER,
        assessment,
        repo=repo,
        pseudonymizer=pseudonymizer,
        store=store,
        session_id="review-session",
        now=RECORDED,
    )
    return case_id, assessment.check, assessment.result


def test_unsure_judgements_are_queued_and_decided(
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    llm_server: LLMServer,
    judge: OpenAIJudge,
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
) -> None:
    """Below the threshold: queued with claim, article text and probabilities; a decision is
    recorded once, as confirmed or overridden."""
    case_id, _check, result = judged_case(
        audit_engine, statute_repository, llm_server, judge, pseudonymizer, store,
        Reply.chat("B", top_logprobs=UNSURE), Reply.chat("A", top_logprobs=UNSURE | {"A": 0.0}),
    )  # fmt: skip
    assert [item.stands for item in result.judged] == [False, False]
    ids = enqueue(audit_engine, case_id, 1, result.judged, as_of=AS_OF, now=RECORDED)
    assert len(ids) == 2
    assert enqueue(audit_engine, case_id, 1, result.judged, as_of=AS_OF) == ids  # idempotent
    first, second = pending(audit_engine)
    assert first.provision == "《中华人民共和国个人信息保护法》第十五条第二款"
    assert "不影响撤回前" in first.article_text and "随之无效" in first.claim
    assert first.probabilities == pytest.approx(
        {"supports": 0.3, "contradicts": 0.6, "says_nothing": 0.1}
    )
    assert (first.judge_relation, first.confidence, first.threshold) == (
        "contradicts",
        pytest.approx(0.6),
        0.8,
    )
    assert first.model == "judge-m" and first.outcome == "pending"
    assert PHONE not in second.claim and "离婚时" in second.claim  # the claim is PII masked

    confirmed = decide(audit_engine, first.id, "contradicts", reviewer="k-reviewer", now=DECIDED)
    assert (confirmed.outcome, confirmed.reviewer, confirmed.decided_at) == (
        "confirmed", "k-reviewer", DECIDED,
    )  # fmt: skip
    overridden = decide(
        audit_engine, second.id, "contradicts", reviewer="k-reviewer", note=f"call {PHONE}"
    )
    assert overridden.outcome == "overridden" and PHONE not in (overridden.note or "")
    assert pending(audit_engine) == []
    with pytest.raises(AlreadyDecidedError):
        decide(audit_engine, first.id, "supports", reviewer="someone else")
    assert get(audit_engine, first.id).decision == "contradicts"


def test_gate_run_carries_unsure_judgements_into_the_review_queue(
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    llm_server: LLMServer,
    judge: OpenAIJudge,
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
) -> None:
    """gate.run with a judge keeps every judgement in its attempt (also through the round's
    JSON); recording the round queues the unsure one, with nothing queued by hand."""
    llm_server.script(Reply.chat("B", top_logprobs=UNSURE), Reply.chat("A", top_logprobs=SURE))
    round_ = gate.run(
        None, ANSWER, None, repo=statute_repository, session_id="run", as_of=AS_OF, judge=judge
    )
    (attempt,) = round_.attempts
    assert [item.stands for item in attempt.judged] == [False, True]
    kept = RoundRecord.model_validate_json(round_.model_dump_json())
    assert kept.attempts[0].judged == attempt.judged
    case_id = record(
        audit_engine, round_, repo=statute_repository, pseudonymizer=pseudonymizer, store=store
    )
    (item,) = pending(audit_engine)
    assert (item.case_id, item.attempt, item.judge_relation) == (case_id, 1, "contradicts")
    assert item.provision == "《中华人民共和国个人信息保护法》第十五条第二款"
    assert item.claim.startswith("个人撤回同意后")


def test_standing_judgements_are_not_queued(
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    llm_server: LLMServer,
    judge: OpenAIJudge,
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
) -> None:
    """A judgement at or above the threshold decides by itself: nothing waits for a person."""
    case_id, _check, result = judged_case(
        audit_engine, statute_repository, llm_server, judge, pseudonymizer, store,
        Reply.chat("A", top_logprobs=SURE), Reply.chat("B", top_logprobs=UNSURE),
    )  # fmt: skip
    ids = enqueue(audit_engine, case_id, 1, result.judged, as_of=AS_OF)
    assert len(ids) == 1
    assert [item.provision for item in pending(audit_engine)] == [
        "《中华人民共和国民法典》第一千零八十七条"
    ]


@pytest.mark.parametrize(
    ("review_id", "decision", "reviewer", "error"),
    [
        (999, "supports", "k", ReviewNotFoundError),
        (None, "maybe", "k", ReviewError),
        (None, "supports", " ", ReviewError),
    ],
    ids=["unknown-item", "unknown-decision", "no-reviewer"],
)
def test_bad_decisions_are_refused(
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    llm_server: LLMServer,
    judge: OpenAIJudge,
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
    review_id: int | None,
    decision: str,
    reviewer: str,
    error: type[Exception],
) -> None:
    """An unknown item, decision or a missing reviewer records nothing."""
    case_id, _check, result = judged_case(
        audit_engine, statute_repository, llm_server, judge, pseudonymizer, store,
        Reply.chat("B", top_logprobs=UNSURE), Reply.chat("B", top_logprobs=UNSURE),
    )  # fmt: skip
    ids = enqueue(audit_engine, case_id, 1, result.judged, as_of=AS_OF)
    with pytest.raises(error):
        decide(audit_engine, review_id or ids[0], decision, reviewer=reviewer)
    assert len(pending(audit_engine)) == 2


def test_decisions_appear_in_the_evidence_pack(
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    llm_server: LLMServer,
    judge: OpenAIJudge,
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
    tmp_path: Path,
) -> None:
    """cases.jsonl carries each queued citation with the judge's probabilities and the
    reviewer's decision; clusters.json counts them; the pack verifies."""
    case_id, _check, result = judged_case(
        audit_engine, statute_repository, llm_server, judge, pseudonymizer, store,
        Reply.chat("B", top_logprobs=UNSURE), Reply.chat("B", top_logprobs=UNSURE),
    )  # fmt: skip
    first, _second = enqueue(audit_engine, case_id, 1, result.judged, as_of=AS_OF)
    decide(audit_engine, first, "supports", reviewer="k-reviewer", now=DECIDED)
    out = tmp_path / "pack.zip"
    summary = export_pack(audit_engine, "2026Q4", out, timezone=ZONE, scheme=pseudonymizer.scheme)
    assert verify_pack(out) == summary
    with zipfile.ZipFile(out) as archive:
        (case,) = [json.loads(line) for line in archive.read("cases.jsonl").splitlines()]
        clusters = json.loads(archive.read("clusters.json"))
    overridden, waiting = case["judge_reviews"]
    assert overridden["provision"] == "《中华人民共和国个人信息保护法》第十五条第二款"
    assert overridden["judge"]["relation"] == "contradicts"
    assert overridden["judge"]["contradicts"] == pytest.approx(0.6)
    assert (overridden["outcome"], overridden["decision"], overridden["reviewer"]) == (
        "overridden", "supports", "k-reviewer",
    )  # fmt: skip
    assert overridden["decided_at"] == "2026-11-03T10:00:00Z"
    assert (waiting["outcome"], waiting["decision"], waiting["decided_at"]) == (
        "pending",
        None,
        None,
    )
    assert PHONE not in json.dumps(case, ensure_ascii=False)
    assert clusters["judge_reviews"] == {
        "items": 2, "pending": 1, "confirmed": 0, "overridden": 1,
        "decisions": {"supports": 1, "contradicts": 0, "says_nothing": 0},
    }  # fmt: skip
