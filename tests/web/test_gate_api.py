"""POST /api/v1/gate and /premise on SQLite and PostgreSQL: decisions recorded, rounds continued."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from audit.recorder import ATTEMPT_TABLE, CASE_TABLE, CITATION_TABLE
from legaldb import StatuteRepository
from tests.web.conftest import (
    INVENTED,
    REPEALED,
    THREE_CITATIONS,
    VERIFIED,
    bearer,
    client_for,
)
from tests.web.recorded import GatedApp, gate_settings, round_store
from web.schemas import GateResponse, PremiseResponse

QUESTION = "离婚时共同财产怎么分？对方违约怎么办？"
GOOD_ANSWER = f"依照{VERIFIED}，离婚时，夫妻的共同财产由双方协议处理。"


def _gate(app: GatedApp, role: str = "checker", **body: Any) -> Any:
    return app.client.post("/api/v1/gate", json=body, headers=bearer(app.keys[role]))


def _rows(app: GatedApp, table: sa.Table, **where: Any) -> list[Any]:
    query = sa.select(table).where(*(table.c[name] == value for name, value in where.items()))
    with app.engine.connect() as connection:
        return list(connection.execute(query))


def test_gate_is_recorded_with_its_citations(gated_app: GatedApp) -> None:
    """A verified, a repealed and an invented citation: rerun with facts, all of it recorded."""
    response = _gate(
        gated_app,
        question=QUESTION,
        answer=THREE_CITATIONS,
        subject_id="user-4711",
        session_id="chat-0815",
        as_of="2024-01-01",
    )
    assert response.status_code == 200, response.text
    body = GateResponse.model_validate(response.json())
    assert (body.decision, body.attempt, body.session_id) == ("rerun", 1, "chat-0815")
    assert body.verifiable_rate == pytest.approx(1 / 3)
    assert (body.counts.provisions, body.counts.verified, body.counts.unverified) == (3, 1, 1)
    assert body.round.state == "open" and body.round.next_attempt == 2
    assert body.rerun_request is not None and body.rerun_request.attempt == 2
    assert {f.signal for f in body.failures} == {"repealed", "article_not_found"}
    assert any("共 1260 条" in fact.text for fact in body.facts)
    assert [s.name for s in body.standards][:2] == ["verifiable_rate", "no_invented_articles"]

    sessions = gated_app.pseudonymizer.pseudonym("sess", "chat-0815")
    [case] = _rows(gated_app, CASE_TABLE, case_id=body.case_id)
    assert case.session == sessions
    assert case.subject == gated_app.pseudonymizer.pseudonym("subj", "user-4711")
    assert (case.state, case.attempt_count, case.as_of.isoformat()) == ("open", 1, "2024-01-01")
    [attempt] = _rows(gated_app, ATTEMPT_TABLE, case_id=body.case_id)
    assert (attempt.decision, attempt.rerun_requested) == ("rerun", True)
    citations = sorted(_rows(gated_app, CITATION_TABLE, case_id=body.case_id),
                       key=lambda row: row.position)  # fmt: skip
    assert [(c.surface, c.status, c.reason) for c in citations] == [
        (VERIFIED, "verified", "in_force"),
        (REPEALED, "deprecated", "repealed"),
        (INVENTED, "unverified", "article_not_found"),
    ]


def test_second_attempt_continues_the_round(gated_app: GatedApp) -> None:
    """The same session continues the round: attempt 2 passes, same case, round store emptied."""
    first = _gate(gated_app, question=QUESTION, answer=THREE_CITATIONS, session_id="s-2",
                  as_of="2024-01-01").json()  # fmt: skip
    second = _gate(gated_app, question=QUESTION, answer=GOOD_ANSWER, session_id="s-2")
    assert second.status_code == 200, second.text
    body = GateResponse.model_validate(second.json())
    assert (body.attempt, body.decision, body.case_id) == (2, "pass", first["case_id"])
    assert (body.round.state, body.round.delivery) == ("passed_after_rerun", "deliver_with_badges")
    assert body.round.next_attempt is None and body.rerun_request is None
    assert body.as_of == "2024-01-01"  # the round keeps its first answer's date
    assert [f.text for f in body.injected_facts] == [f["text"] for f in first["facts"]]

    [case] = _rows(gated_app, CASE_TABLE, case_id=body.case_id)
    assert (case.state, case.attempt_count) == ("passed_after_rerun", 2)
    attempts = _rows(gated_app, ATTEMPT_TABLE, case_id=body.case_id)
    assert sorted(a.attempt for a in attempts) == [1, 2]
    rounds = round_store(gated_app)
    assert rounds.get(gated_app.pseudonymizer.pseudonym("sess", "s-2")) is None

    third = _gate(gated_app, question=QUESTION, answer=GOOD_ANSWER, session_id="s-2").json()
    assert third["attempt"] == 1 and third["case_id"] != body.case_id  # the round had ended


def test_a_new_question_in_the_session_starts_a_new_round(gated_app: GatedApp) -> None:
    """Without `attempt`, another question opens a new round (a new case) in the same session."""
    first = _gate(gated_app, question=QUESTION, answer=THREE_CITATIONS, session_id="s-3").json()
    other = _gate(gated_app, question="合同违约怎么办？", answer=THREE_CITATIONS, session_id="s-3")
    assert other.json()["attempt"] == 1 and other.json()["case_id"] != first["case_id"]


def test_without_session_the_response_gives_one(gated_app: GatedApp) -> None:
    """No session_id: a fresh random one, returned for the next attempt."""
    first = _gate(gated_app, answer=THREE_CITATIONS, as_of="2024-01-01").json()
    assert first["session_id"].startswith("web-")
    again = _gate(gated_app, answer=GOOD_ANSWER, session_id=first["session_id"], attempt=2)
    assert again.status_code == 200 and again.json()["case_id"] == first["case_id"]


CONFLICTS = [
    ("wrong attempt", {"attempt": 3}, "attempt"),
    ("another subject", {"subject_id": "someone-else"}, "subject_id"),
    ("another question", {"attempt": 2, "question": "别的问题？"}, "question"),
    ("another day", {"attempt": 2, "as_of": "2025-01-01"}, "as_of"),
]


@pytest.mark.parametrize(
    ("change", "field"), [c[1:] for c in CONFLICTS], ids=[c[0] for c in CONFLICTS]
)
def test_an_answer_that_does_not_fit_the_round_is_409(
    gated_app: GatedApp, change: dict[str, Any], field: str
) -> None:
    """409 round_conflict naming the field; the round stays open and unchanged."""
    opening = {"question": QUESTION, "answer": THREE_CITATIONS, "session_id": "s-9",
               "subject_id": "u-1", "as_of": "2024-01-01"}  # fmt: skip
    first = _gate(gated_app, **opening).json()
    response = _gate(gated_app, **{**opening, "answer": GOOD_ANSWER, **change})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "round_conflict"
    assert response.json()["error"]["field"] == field
    [case] = _rows(gated_app, CASE_TABLE, case_id=first["case_id"])
    assert case.attempt_count == 1
    follow = _gate(gated_app, **{**opening, "answer": GOOD_ANSWER, "attempt": 2})
    assert follow.json()["attempt"] == 2 and follow.json()["case_id"] == first["case_id"]


def test_a_later_attempt_without_a_round_is_409(gated_app: GatedApp) -> None:
    """attempt 2 of a session with no open round is refused, naming attempt."""
    response = _gate(gated_app, answer=GOOD_ANSWER, session_id="never-seen", attempt=2)
    assert response.status_code == 409 and response.json()["error"]["field"] == "attempt"
    assert _rows(gated_app, CASE_TABLE) == []


INVALID = [
    ("no answer", {}, "answer"),
    ("empty answer", {"answer": ""}, "answer"),
    ("attempt 0", {"answer": "x", "attempt": 0}, "attempt"),
    ("bad date", {"answer": "x", "as_of": "2024-13-01"}, "as_of"),
    ("long session", {"answer": "x", "session_id": "s" * 201}, "session_id"),
    ("empty subject", {"answer": "x", "subject_id": ""}, "subject_id"),
    ("unknown field", {"answer": "x", "temperature": 0}, "temperature"),
]


@pytest.mark.parametrize(("body", "field"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID])
def test_gate_invalid_input_names_the_field(
    gated_app: GatedApp, body: dict[str, Any], field: str
) -> None:
    """422 invalid_input with the bad field; nothing recorded."""
    response = _gate(gated_app, **body)
    assert response.status_code == 422
    assert response.json()["error"] == {
        "code": "invalid_input", "field": field, "message": response.json()["error"]["message"]
    }  # fmt: skip
    assert _rows(gated_app, CASE_TABLE) == []


@pytest.mark.parametrize("path", ["/api/v1/gate", "/api/v1/premise"], ids=["gate", "premise"])
def test_gate_and_premise_need_a_key(gated_app: GatedApp, path: str) -> None:
    """No key or an unknown key: 401 naming authorization."""
    for headers in ({}, bearer("lgk_000000000000_nope")):
        response = gated_app.client.post(path, json={"answer": "x", "question": "x"},
                                         headers=headers)  # fmt: skip
        assert response.status_code == 401
        assert response.json()["error"]["field"] == "authorization"


@pytest.mark.parametrize("role", ["checker", "auditor", "admin"], ids=str)
def test_every_role_may_gate(gated_app: GatedApp, role: str) -> None:
    """Each role's key may gate and ask for premise facts."""
    assert _gate(gated_app, role, answer=GOOD_ANSWER).status_code == 200
    premise = gated_app.client.post(
        "/api/v1/premise", json={"question": QUESTION}, headers=bearer(gated_app.keys[role])
    )
    assert premise.status_code == 200


def test_gate_body_over_the_limit_is_413(gated_app: GatedApp) -> None:
    """A body over LEXGATE_WEB_MAX_BODY_BYTES is 413 JSON, and nothing is recorded."""
    limit = gated_app.settings.web_max_body_bytes
    response = _gate(gated_app, answer=GOOD_ANSWER * (limit // len(GOOD_ANSWER.encode()) + 1))
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "body_too_large"
    assert _rows(gated_app, CASE_TABLE) == []


def test_a_failed_audit_write_is_503_and_writes_nothing(gated_app: GatedApp) -> None:
    """The audit write fails half-way (no citation table): 503, no case, no open round."""
    assert _gate(gated_app, answer=GOOD_ANSWER).status_code == 200  # statutes loaded
    with gated_app.engine.begin() as connection:
        connection.execute(sa.delete(CITATION_TABLE))
        connection.execute(sa.delete(ATTEMPT_TABLE))
        connection.execute(sa.delete(CASE_TABLE))
        connection.execute(sa.text("DROP TABLE audit_citation"))
    response = _gate(gated_app, answer=THREE_CITATIONS, session_id="s-503", as_of="2024-01-01")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "audit_unavailable"
    assert _rows(gated_app, CASE_TABLE) == [] and _rows(gated_app, ATTEMPT_TABLE) == []
    rounds = round_store(gated_app)
    assert rounds.get(gated_app.pseudonymizer.pseudonym("sess", "s-503")) is None


def test_gate_when_the_database_is_down_is_503(tmp_path: Path) -> None:
    """A database that cannot be reached: 503 database_unavailable, in the JSON shape."""
    settings = gate_settings("postgresql+psycopg://nobody@127.0.0.1:9/none", tmp_path)
    with client_for(settings) as client:
        response = client.post(
            "/api/v1/gate", json={"answer": GOOD_ANSWER}, headers=bearer("lgk_0123456789ab_x")
        )
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "database_unavailable"


PREMISES = [
    ("repealed law", "依照合同法，对方违约我能要求赔偿吗？", "2024-01-01", "law_repealed"),
    ("upcoming version", "《公司法》规定股东出资期限吗？", "2024-01-01", "upcoming_version"),
]


@pytest.mark.parametrize(("question", "as_of", "kind"), [p[1:] for p in PREMISES],
                         ids=[p[0] for p in PREMISES])  # fmt: skip
def test_premise_gives_facts(gated_app: GatedApp, question: str, as_of: str, kind: str) -> None:
    """POST /premise: the facts about the laws a question names, as of the date."""
    response = gated_app.client.post(
        "/api/v1/premise",
        json={"question": question, "as_of": as_of},
        headers=bearer(gated_app.keys["checker"]),
    )
    assert response.status_code == 200, response.text
    body = PremiseResponse.model_validate(response.json())
    assert body.as_of == as_of
    assert kind in [fact.kind for fact in body.facts]


@pytest.mark.parametrize(("body", "field"), [({}, "question"), ({"question": "x", "as_of": "x"}, "as_of")],
                         ids=["no question", "bad date"])  # fmt: skip
def test_premise_invalid_input(gated_app: GatedApp, body: dict[str, Any], field: str) -> None:
    """422 naming the field."""
    response = gated_app.client.post(
        "/api/v1/premise", json=body, headers=bearer(gated_app.keys["checker"])
    )
    assert response.status_code == 422 and response.json()["error"]["field"] == field


def test_the_round_store_is_private_and_forgets_idle_rounds(gated_app: GatedApp) -> None:
    """The open round is kept under the session's pseudonym, ROUND_TTL long: in a mode-0600
    file (SQLite), or sealed in the database, no raw answer or session id in clear (PostgreSQL)."""
    from datetime import UTC, datetime

    from web.rounds import ROUND_TTL
    from web.tables import OPEN_ROUND_TABLE

    _gate(gated_app, answer=THREE_CITATIONS, session_id="s-ttl", as_of="2024-01-01")
    if gated_app.engine.dialect.name == "sqlite":
        assert gated_app.settings.web_round_store_path.stat().st_mode & 0o777 == 0o600
    else:
        [row] = _rows(gated_app, OPEN_ROUND_TABLE)
        assert b"s-ttl" not in row.sealed_record and VERIFIED.encode() not in row.sealed_record
        assert (row.attempts, row.key_id) == (1, "t1")
    rounds = round_store(gated_app)
    session = gated_app.pseudonymizer.pseudonym("sess", "s-ttl")
    kept = rounds.get(session)
    assert kept is not None and kept.record.session_id == "s-ttl"
    later = datetime.now(UTC) + ROUND_TTL * 1.01
    assert rounds.get(session, now=later) is None


def test_new_rounds_are_recorded_outside_the_round_store_lock(
    gated_app: GatedApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite: while another writer holds the round store file, a first answer that ends its
    round is gated and recorded (it needs no kept round); one that opens a round is recorded,
    then 503 because the round cannot be kept; a continuing answer is refused, nothing of it
    recorded. PostgreSQL: while another transaction holds a session's row, the answers of other
    sessions (new and continuing) are gated and recorded: rounds are locked per session."""
    import sqlite3

    import web.rounds

    monkeypatch.setattr(web.rounds, "BUSY_TIMEOUT_S", 0.2)  # before the store is opened
    opened = _gate(gated_app, question=QUESTION, answer=THREE_CITATIONS, session_id="s-lock",
                   as_of="2024-01-01").json()  # fmt: skip
    if gated_app.engine.dialect.name == "postgresql":
        _other_sessions_do_not_wait(gated_app, opened)
        return
    holder = sqlite3.connect(gated_app.settings.web_round_store_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        passed = _gate(gated_app, answer=GOOD_ANSWER, session_id="s-free", as_of="2024-01-01")
        assert passed.status_code == 200, passed.text
        assert passed.json()["round"]["state"] == "passed"
        assert _rows(gated_app, CASE_TABLE, case_id=passed.json()["case_id"]) != []

        cases_before = len(_rows(gated_app, CASE_TABLE))
        kept = _gate(gated_app, answer=THREE_CITATIONS, session_id="s-new", as_of="2024-01-01")
        assert kept.status_code == 503 and kept.json()["error"]["code"] == "audit_unavailable"
        assert len(_rows(gated_app, CASE_TABLE)) == cases_before + 1  # recorded, not kept

        attempts_before = len(_rows(gated_app, ATTEMPT_TABLE, case_id=opened["case_id"]))
        second = _gate(gated_app, question=QUESTION, answer=GOOD_ANSWER, session_id="s-lock")
        assert second.status_code == 503
        assert len(_rows(gated_app, ATTEMPT_TABLE, case_id=opened["case_id"])) == attempts_before
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    second = _gate(gated_app, question=QUESTION, answer=GOOD_ANSWER, session_id="s-lock")
    assert second.status_code == 200 and second.json()["case_id"] == opened["case_id"]


def _other_sessions_do_not_wait(gated_app: GatedApp, opened: dict[str, Any]) -> None:
    """A transaction holds s-lock's row (FOR UPDATE); other sessions' answers go through."""
    from web.tables import OPEN_ROUND_TABLE

    other = _gate(gated_app, question=QUESTION, answer=THREE_CITATIONS, session_id="s-other",
                  as_of="2024-01-01").json()  # fmt: skip
    locked = gated_app.pseudonymizer.pseudonym("sess", "s-lock")
    with gated_app.engine.begin() as holder:
        holder.execute(
            sa.select(OPEN_ROUND_TABLE.c.session)
            .where(OPEN_ROUND_TABLE.c.session == locked)
            .with_for_update()
        )
        new = _gate(gated_app, answer=THREE_CITATIONS, session_id="s-new", as_of="2024-01-01")
        assert new.status_code == 200, new.text
        continued = _gate(gated_app, question=QUESTION, answer=GOOD_ANSWER, session_id="s-other")
        assert continued.status_code == 200, continued.text
        assert continued.json()["case_id"] == other["case_id"]
    second = _gate(gated_app, question=QUESTION, answer=GOOD_ANSWER, session_id="s-lock")
    assert second.status_code == 200 and second.json()["case_id"] == opened["case_id"]


def test_answers_written_together_are_each_recorded(gated_app: GatedApp) -> None:
    """Answers settled in one transaction (the writer thread's batch): new rounds and a
    continued one all recorded, each in its own case; in a batch where one answer no longer
    fits its round, the others are still recorded and only that one is refused (409)."""
    from datetime import date

    from web.errors import RoundConflict
    from web.recording import GateOutcome, GateRequestData, assess_request, find_round, settle_many

    opened = _gate(gated_app, question=QUESTION, answer=THREE_CITATIONS, session_id="s-w",
                   as_of="2024-01-01").json()  # fmt: skip
    state = gated_app.client.app.state  # type: ignore[attr-defined]
    repo, tools = state.statutes.get(), state.audit_tools.get()

    def assessed(answer: str, session_id: str, question: str | None = None) -> Any:
        request = GateRequestData(answer, question, None, session_id, None, date(2024, 1, 1))
        found = find_round(request, tools)
        return assess_request(request, found, repo=repo, tools=tools, today=date(2024, 1, 1))

    continued = assessed(GOOD_ANSWER, "s-w", QUESTION)
    together = [assessed(GOOD_ANSWER, "s-x"), continued, assessed(THREE_CITATIONS, "s-y")]
    outcomes = settle_many(together, gated_app.engine)
    assert all(isinstance(outcome, GateOutcome) for outcome in outcomes), outcomes
    x, w, y = outcomes
    assert isinstance(w, GateOutcome) and w.case_id == opened["case_id"]
    assert sorted(a.attempt for a in _rows(gated_app, ATTEMPT_TABLE, case_id=w.case_id)) == [1, 2]
    for outcome in (x, y):
        assert isinstance(outcome, GateOutcome)
        [case] = _rows(gated_app, CASE_TABLE, case_id=outcome.case_id)
        assert case.attempt_count == 1
    kept = round_store(gated_app).get(gated_app.pseudonymizer.pseudonym("sess", "s-y"))
    assert kept is not None and isinstance(y, GateOutcome) and kept.case_id == y.case_id

    cases_before = len(_rows(gated_app, CASE_TABLE))
    again = settle_many([assessed(GOOD_ANSWER, "s-z"), continued], gated_app.engine)
    assert isinstance(again[0], GateOutcome) and isinstance(again[1], RoundConflict)
    assert len(_rows(gated_app, CASE_TABLE)) == cases_before + 1
    assert len(_rows(gated_app, ATTEMPT_TABLE, case_id=opened["case_id"])) == 2


def test_answers_whose_shared_commit_was_cut_off_are_refused_not_written_again(
    gated_app: GatedApp,
) -> None:
    """The connection is lost as the writer's shared transaction commits (PostgreSQL ends the
    session): whether the commit took effect cannot be known, so every answer of it is
    answered 503 and none is written again by the server (which could record it twice); the
    client's retry then records each once."""
    from datetime import date

    from web.errors import AuditUnavailable
    from web.recording import GateOutcome, GateRequestData, assess_request, find_round, settle_many

    if gated_app.engine.dialect.name != "postgresql":
        pytest.skip("a connection lost during a commit needs a database server")
    state = gated_app.client.app.state  # type: ignore[attr-defined]
    repo, tools = state.statutes.get(), state.audit_tools.get()

    def assessed(answer: str, session_id: str) -> Any:
        request = GateRequestData(answer, None, None, session_id, None, date(2024, 1, 1))
        found = find_round(request, tools)
        return assess_request(request, found, repo=repo, tools=tools, today=date(2024, 1, 1))

    together = [assessed(GOOD_ANSWER, "cut-a"), assessed(THREE_CITATIONS, "cut-b")]
    cases_before = len(_rows(gated_app, CASE_TABLE))
    cut: list[int] = []

    def end_the_session(connection: sa.Connection) -> None:
        if cut:
            return
        pid = connection.connection.dbapi_connection.info.backend_pid  # type: ignore[union-attr]
        cut.append(pid)
        with gated_app.engine.connect() as other:
            other.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})

    sa.event.listen(gated_app.engine, "commit", end_the_session)
    try:
        outcomes = settle_many(together, gated_app.engine)
    finally:
        sa.event.remove(gated_app.engine, "commit", end_the_session)
    assert cut, "the shared transaction never reached its commit"
    assert all(isinstance(outcome, AuditUnavailable) for outcome in outcomes), outcomes
    assert len(_rows(gated_app, CASE_TABLE)) == cases_before  # the session ended: nothing kept

    retried = settle_many([assessed(GOOD_ANSWER, "cut-a"), assessed(THREE_CITATIONS, "cut-b")],
                          gated_app.engine)  # fmt: skip
    assert all(isinstance(outcome, GateOutcome) for outcome in retried), retried
    assert len(_rows(gated_app, CASE_TABLE)) == cases_before + 2


def _direct_requests(session: str, key: str) -> list[tuple[str, str, dict[str, str], bytes]]:
    """Requests of every kind to POST /api/v1/gate (and one GET): the usual ones, which the
    direct route answers once the key is cached, and the ones it leaves to FastAPI's route."""
    import json

    def body(**fields: Any) -> bytes:
        return json.dumps(fields, ensure_ascii=False).encode()

    as_json = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    opened = body(question=QUESTION, answer=THREE_CITATIONS, session_id=session,
                  subject_id="u-1", as_of="2024-01-01")  # fmt: skip
    return [
        ("POST", "opens a round", as_json, opened),
        ("POST", "attempt 3 of 1", as_json, body(answer=GOOD_ANSWER, session_id=session, attempt=3)),
        ("POST", "continues it", {**as_json, "Content-Type": "application/json; charset=utf-8"},
         body(question=QUESTION, answer=GOOD_ANSWER, session_id=session, subject_id="u-1")),
        ("POST", "no session", {"X-API-Key": key, "Content-Type": "application/json"},
         body(answer=GOOD_ANSWER, as_of="2024-01-01")),
        ("POST", "not JSON", as_json, b'{"answer": '),
        ("POST", "no answer", as_json, body(question=QUESTION)),
        ("POST", "empty answer", as_json, body(answer="")),
        ("POST", "a list", as_json, b"[]"),
        ("POST", "nested too deep", as_json, b"[" * 50_000 + b"]" * 50_000),
        ("POST", "no body", as_json, b""),
        ("POST", "form type", {**as_json, "Content-Type": "text/plain"}, body(answer=GOOD_ANSWER)),
        ("POST", "unknown key", {**as_json, "Authorization": "Bearer nope"}, opened),
        ("POST", "no key", {"Content-Type": "application/json"}, opened),
        ("GET", "GET", as_json, b""),
    ]  # fmt: skip


def test_the_direct_route_reads_a_key_it_does_not_hold(gated_app: GatedApp) -> None:
    """A usual request whose valid key the worker's cache does not hold yet is answered by the
    direct route (not handed to FastAPI's route), and the key is kept for the next ones."""
    from starlette.types import Receive, Scope, Send

    from web.routes.gate import DECLINED

    scopes: list[Scope] = []
    app = gated_app.client.app

    async def observed(scope: Scope, receive: Receive, send: Send) -> None:
        scopes.append(scope)
        await app(scope, receive, send)  # type: ignore[operator]

    key = gated_app.keys["checker"]
    cache = app.state.key_cache  # type: ignore[attr-defined]
    assert cache.get(key) is None
    client = TestClient(observed)  # not entered: the app's lifespan runs in gated_app's client
    response = client.post("/api/v1/gate", json={"answer": GOOD_ANSWER}, headers=bearer(key))
    assert response.status_code == 200 and response.json()["decision"] == "pass"
    assert [scope.get(DECLINED) for scope in scopes if scope["type"] == "http"] == [None]
    assert cache.get(key) is not None


def test_an_unknown_key_is_read_once(gated_app: GatedApp) -> None:
    """A key the database does not hold is read once per request, though the direct route
    reads it first and leaves the request to FastAPI's route, which answers the 401."""
    engine = gated_app.client.app.state.engine  # type: ignore[attr-defined]
    reads: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if "api_key" in statement:
            reads.append(statement)

    unknown = gated_app.keys["checker"][:-4] + "zzzz"
    sa.event.listen(engine, "before_cursor_execute", count)
    try:
        for _ in range(2):
            response = gated_app.client.post(
                "/api/v1/gate", json={"answer": GOOD_ANSWER}, headers=bearer(unknown)
            )
            assert response.status_code == 401
            assert response.json()["error"]["field"] == "authorization"
    finally:
        sa.event.remove(engine, "before_cursor_execute", count)
    assert len(reads) == 2


def test_the_direct_route_answers_as_fastapis_route(gated_app: GatedApp, tmp_path: Path) -> None:
    """Each request gets the same status, headers and body (its random ids set aside) from
    the app, whose direct route answers the usual POST /api/v1/gate once the key is cached,
    as from an app without a key cache, where FastAPI's route answers every request."""
    import re

    from web.routes.gate import DirectGateRoute

    uncached = gated_app.settings.model_copy(update={"web_key_cache_s": 0})
    key = gated_app.keys["checker"]
    replies: dict[str, list[tuple[int, list[tuple[str, str]], str]]] = {}
    with client_for(uncached) as through_fastapi:
        for name, client in (("direct", gated_app.client), ("fastapi", through_fastapi)):
            assert client.post("/api/v1/check", json={"answer": GOOD_ANSWER},
                               headers=bearer(key)).status_code == 200  # the key cached  # fmt: skip
            replies[name] = []
            for method, _, headers, content in _direct_requests(f"s-{name}", key):
                response = client.request(method, "/api/v1/gate", headers=headers, content=content)
                text = re.sub(r"[0-9a-f]{32}", "<id>", response.text.replace(f"s-{name}", "<s>"))
                kept = sorted((k, v) for k, v in response.headers.items() if k != "content-length")
                replies[name].append((response.status_code, kept, text))
    statuses = [status for status, _, _ in replies["direct"]]
    assert statuses == [200, 409, 200, 200, 422, 422, 422, 422, 400, 422, 422, 401, 401, 405]
    assert replies["direct"] == replies["fastapi"]
    assert isinstance(gated_app.client.app.router.routes[1], DirectGateRoute)  # type: ignore[attr-defined]


def test_the_warm_up_answers_reach_what_they_warm(statute_repository: StatuteRepository) -> None:
    """Each worker gates WARM_UP_ANSWERS before it takes requests: over the bundled corpus
    they hold a quote, a repealed law, a law named without 《》 and no citation at all."""
    from verifier import check
    from web.recording import WARM_UP_ANSWERS

    results = [check(answer, statute_repository, date(2023, 8, 1)) for answer in WARM_UP_ANSWERS]
    citations = [[verdict.citation for verdict in result.verdicts] for result in results]
    assert [[verdict.status for verdict in result.verdicts] for result in results] == [
        ["verified"],
        ["deprecated", "verified"],
        [],
    ]
    assert citations[0][0].quote is not None and citations[1][1].quote is not None
    assert citations[1][1].law_as_written == "刑法"
