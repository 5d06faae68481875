"""Faults: PostgreSQL stopped under load, and a regenerator that is slow, failing or garbage."""

from __future__ import annotations

import socket
import time
from collections import Counter
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from audit import MappingStore, Pseudonymizer, record
from audit.tables import AuditCase, AuditCitation
from benchmarks.soak import (
    OUTAGE_REPLY_BOUND_S,
    OwnPostgres,
    corpus_database,
    make_key,
    outage,
    serve,
)
from gate import run
from gate.models import RoundRecord
from legaldb import StatuteRepository, make_engine
from legaldb.engine import PG_CONNECT_TIMEOUT_S
from lexgate.llm import ClientOptions, OpenAIRegenerator
from tests.llm_server import LLMServer, Reply
from tests.reliability.conftest import TestClient, audit_counts, bearer, private_settings
from web import create_app

INVENTED = "可以要求赔偿。根据《中华人民共和国民法典》第一千二百八十九条，邻居应当承担赔偿责任。"
QUESTION = "邻居家水管漏水淹了我家的地板，我能要求赔偿吗？"


@pytest.fixture(scope="module")
def own_postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OwnPostgres]:
    """A PostgreSQL server of this module only (the test stops it; the shared one stays up)."""
    database = OwnPostgres(tmp_path_factory.mktemp("own-pg"))
    try:
        yield database
    finally:
        database.cleanup()


def test_postgres_outage_under_load(own_postgres: OwnPostgres, tmp_path: Path) -> None:
    """Database stopped mid-load: JSON 503 within 2 s, recovery without restart, nothing lost."""
    url = corpus_database(own_postgres.create_database("outage"))
    key = make_key(url)
    with serve(url, tmp_path, workers=1) as server:
        report = outage(own_postgres, server.url, key, url, outage_s=3.0)
        assert server.process.poll() is None  # the same process served before and after
    assert len(report.during) >= 10
    assert report.statuses_during == {503: len(report.during)}
    for reply in report.during:
        assert reply.body is not None and reply.body["error"]["code"], reply  # type: ignore[index]
    assert report.slowest_during_s < OUTAGE_REPLY_BOUND_S
    assert report.recovery_s < 10.0
    assert Counter(reply.status for reply in report.after) == {200: len(report.after)}
    assert report.records.lost == [] and report.records.half_written == []
    assert report.records.recorded >= len(report.after)


# --- the regenerator --------------------------------------------------------------------------

FAULTS = {
    "slow": (Reply.hang(2.0),),
    "always-500": (Reply.error(500),),
    "rate-limited-too-long": (Reply.error(429, retry_after="3600"),),
    "garbage-bytes": (Reply.raw(b"\x00\xff<html>oops", content_type="text/html"),),
    "truncated-json": (Reply.raw('{"choices": [{"message": {"content": "依据'),),
    "no-choices": (Reply.json({"choices": []}),),
    "empty-content": (Reply.chat(""),),
    "dropped": (Reply.drop(),),
    "unauthorized": (Reply.error(401),),
}


def _regenerator(server: LLMServer) -> OpenAIRegenerator:
    """A client with a short timeout and quick retries (the budget: 3 tries of 0.3 s)."""
    return OpenAIRegenerator(
        base_url=server.base_url,
        model="scripted",
        options=ClientOptions(
            timeout_s=0.3, max_retries=2, backoff_s=0.01, backoff_max_s=0.05, max_retry_after_s=1.0
        ),
    )


def _round(repo: StatuteRepository, regenerator: OpenAIRegenerator, session_id: str) -> RoundRecord:
    try:
        return run(
            QUESTION,
            INVENTED,
            regenerator,
            repo=repo,
            session_id=session_id,
            as_of=date(2024, 1, 1),
        )
    finally:
        regenerator.close()


@pytest.mark.parametrize("replies", FAULTS.values(), ids=FAULTS.keys())
def test_a_failing_regenerator_ends_the_round_in_regenerator_error(
    llm_server: LLMServer, statute_repository: StatuteRepository, replies: tuple[Reply, ...]
) -> None:
    """No exception escapes: the round ends in regenerator_error, with its error, in bounded time."""
    llm_server.script(*replies, then=replies[-1])
    started = time.monotonic()
    round_ = _round(statute_repository, _regenerator(llm_server), "fault-session")
    assert time.monotonic() - started < 10.0
    assert round_.state == "regenerator_error"
    assert round_.error
    assert len(round_.attempts) == 1
    assert 1 <= len(llm_server.requests) <= 3


def test_a_round_ended_by_the_regenerator_is_recorded_whole(
    llm_server: LLMServer, gate_database_url: str, tmp_path: Path
) -> None:
    """The audit trail holds the failed round: its state, its one attempt, its citation."""
    llm_server.script(then=Reply.error(503))
    engine = make_engine(gate_database_url)
    try:
        repo = StatuteRepository.load(engine)
        round_ = _round(repo, _regenerator(llm_server), "recorded-fault-session")
        case_id = record(
            engine,
            round_,
            repo=repo,
            pseudonymizer=Pseudonymizer(b"fault-test-secret-0123456789", "k1"),
            store=MappingStore(tmp_path / "map.sqlite3"),
            subject_id="fault-subject",
        )
        with Session(engine) as session:
            case = session.get(AuditCase, case_id)
            assert case is not None
            assert (case.state, case.attempt_count) == ("regenerator_error", 1)
            assert case.error
            cited = session.query(AuditCitation).filter_by(case_id=case_id).count()
            assert cited == round_.attempts[0].counts.citations == 1
    finally:
        engine.dispose()


def test_garbage_answers_from_the_model_are_gated_not_raised(
    llm_server: LLMServer, statute_repository: StatuteRepository
) -> None:
    """A model that answers nonsense (NUL, 《《〈, 第第第) gets its answers gated, round closes."""
    llm_server.script(
        Reply.chat("\x00《《〈第第第条"),
        Reply.chat("第" * 5000),
        then=Reply.chat("《中华人民共和国民法典》第九九九九九九九九九条"),
    )
    round_ = _round(statute_repository, _regenerator(llm_server), "garbage-session")
    assert round_.state != "open" and round_.state != "regenerator_error"
    assert len(round_.attempts) >= 2


@pytest.fixture
def silent_database_url() -> Iterator[str]:
    """A PostgreSQL URL on a loopback port that accepts connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        yield f"postgresql://lexgate@127.0.0.1:{listener.getsockname()[1]}/lexgate"


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/api/v1/readyz"), ("GET", "/api/v1/laws?q=民法典"), ("POST", "/api/v1/gate")],
    ids=["readyz", "laws", "gate"],
)
def test_a_silent_database_is_a_503_not_a_hang(
    silent_database_url: str, tmp_path: Path, method: str, path: str
) -> None:
    """A database that never answers: JSON 503 within the connect timeout, no request hangs."""
    settings = private_settings(silent_database_url, tmp_path)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        started = time.monotonic()
        response = client.request(
            method, path, json={"answer": "民法典第一条"}, headers=bearer("lgk_0123456789ab_x")
        )
        elapsed = time.monotonic() - started
    assert response.status_code == 503, response.text[:300]
    assert response.json()["error"]["code"]
    assert elapsed < 3 * PG_CONNECT_TIMEOUT_S


JUDGED_ANSWER = (
    "根据《中华人民共和国民法典》第一千零八十七条，离婚时，夫妻的共同财产由双方协议处理；"
    "协议不成的，由人民法院根据财产的具体情况判决。"
)
JUDGE_FAULTS = {
    "slow": Reply.hang(2.0),
    "always-500": Reply.error(500),
    "garbage": Reply.raw(b"\x00\xffnot json"),
    "no-logprobs": Reply.chat("A"),
}


@pytest.mark.parametrize("reply", JUDGE_FAULTS.values(), ids=JUDGE_FAULTS.keys())
def test_gate_with_a_failing_judge_still_answers_and_records(
    llm_server: LLMServer,
    gate_database_url: str,
    gate_keys: dict[str, str],
    tmp_path: Path,
    reply: Reply,
) -> None:
    """POST /gate with the model judge slow, failing or garbled: 200 and recorded, no 5xx."""
    llm_server.script(then=reply)
    settings = private_settings(
        gate_database_url,
        tmp_path,
        judge_enabled=True,
        judge_base_url=llm_server.base_url,
        judge_model="scripted",
        llm_timeout_s=0.3,
        llm_max_retries=1,
        llm_backoff_s=0.01,
    )
    before = audit_counts(gate_database_url)[0]
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        started = time.monotonic()
        response = client.post(
            "/api/v1/gate", json={"answer": JUDGED_ANSWER}, headers=bearer(gate_keys["checker"])
        )
        elapsed = time.monotonic() - started
    assert response.status_code == 200, response.text[:300]
    assert elapsed < 10.0
    assert llm_server.requests, "the judge was never asked"
    assert audit_counts(gate_database_url)[0] == before + 1
