"""Recording gated answers on both databases: masked, pseudonymous, all or nothing; tracing."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

import gate
from audit import MappingStore, Pseudonymizer, record, record_many, record_result, trace
from audit.errors import AuditWriteError, CaseMismatchError, TraceError
from audit.models import PseudonymKind, Recording
from audit.recorder import ATTEMPT_TABLE, CASE_TABLE, CITATION_TABLE, HASH_PIECE, answer_sha256
from legaldb import StatuteRepository
from lexgate.cli import app
from lexgate.settings import get_settings
from tests.audit.conftest import (
    AS_OF,
    ONLY_SQLITE_STATUTES,
    RAW_SESSION,
    RAW_SUBJECT,
    SECRET,
    SEEDS,
    gated,
    seeded,
)

NOW = datetime(2026, 11, 2, 9, 30, tzinfo=timezone(timedelta(hours=8)))
TABLES = (CASE_TABLE, ATTEMPT_TABLE, CITATION_TABLE)


def rows(engine: Engine, table: sa.Table) -> list[Any]:
    with engine.connect() as connection:
        return list(connection.execute(sa.select(table)))


def row_counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as connection:
        return {
            table.name: connection.execute(
                sa.select(sa.func.count()).select_from(table)
            ).scalar_one()
            for table in TABLES
        }


def rerun_round(
    repo: StatuteRepository, dev_answers: list[dict[str, Any]], session_id: str
) -> tuple[gate.RoundRecord, str]:
    """The first question (in file order) whose first answer the gate sends back for a rerun,
    as an open round, and another real answer to that question to submit next."""
    for item in dev_answers:
        round_ = gate.open_round(session_id=session_id, question=item["question"], as_of=AS_OF)
        round_ = gate.submit(round_, item["answer"], repo=repo)
        if round_.state == "open":
            other = next(
                o["answer"]
                for o in dev_answers
                if o["question"] == item["question"] and o["answer"] != item["answer"]
            )
            return round_, other
    raise AssertionError("no answer of the development set asks for a rerun")


@ONLY_SQLITE_STATUTES
def test_a_gated_answer_is_stored_masked_and_pseudonymous(
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    dev_answers: list[dict[str, Any]],
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
) -> None:
    """The case holds pseudonyms, masked texts, the raw answer's hash, the verdicts, the
    policy and the snapshot; the mapping store holds the real ids."""
    item = dev_answers[0]
    question, answer = seeded(item["question"]), seeded(item["answer"])
    assessment = gated(statute_repository, answer, question)
    result = assessment.result
    case_id = record_result(
        audit_engine,
        answer,
        assessment,
        repo=statute_repository,
        pseudonymizer=pseudonymizer,
        store=store,
        session_id=RAW_SESSION,
        question=question,
        subject_id=RAW_SUBJECT,
        now=NOW,
    )
    (case,) = rows(audit_engine, CASE_TABLE)
    (attempt,) = rows(audit_engine, ATTEMPT_TABLE)
    citations = rows(audit_engine, CITATION_TABLE)
    session = pseudonymizer.pseudonym(PseudonymKind.SESSION, RAW_SESSION)
    subject = pseudonymizer.pseudonym(PseudonymKind.SUBJECT, RAW_SUBJECT)
    assert (case.case_id, case.session, case.subject) == (case_id, session, subject)
    assert case.recorded_at == NOW and case.recorded_at.tzinfo is not None
    assert case.recorded_at.utcoffset() == timedelta(0)
    assert case.as_of == AS_OF
    assert case.policy == gate.Policy().model_dump(mode="json")
    assert case.statute_snapshot == statute_repository.manifest().snapshot
    first_state = {"pass": "passed", "pass_boundary": "data_boundary"}  # else a rerun is asked
    assert case.state == first_state.get(result.decision, "open")
    assert "[手机号]" in case.question and "[身份证号]" in case.question
    assert "[邮箱]" in attempt.answer and "[银行卡号]" in attempt.answer
    assert attempt.answer_sha256 == hashlib.sha256(answer.encode()).hexdigest()
    assert (attempt.decision, attempt.verifiable_rate) == (result.decision, result.verifiable_rate)
    assert [(c.status, c.reason) for c in citations] == [
        (v.status, v.reason) for v in assessment.check.verdicts
    ]
    assert any(not s["passed"] for s in attempt.standards)  # the seeded conclusion has no basis
    assert any("拨打[手机号]" in text for text in attempt.unsupported_conclusions)
    stored = repr([case, attempt, *citations])
    assert not [seed for seed in SEEDS if seed in stored]
    assert store.resolve(session).raw_id == RAW_SESSION
    assert store.resolve(subject).raw_id == RAW_SUBJECT


@ONLY_SQLITE_STATUTES
def test_texts_recorded_again_are_masked_again(
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    dev_answers: list[dict[str, Any]],
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
) -> None:
    """Short texts found free of personal data are masked once per process; one holding some
    is masked each time: the same seeded question and answer recorded twice, masked twice."""
    item = dev_answers[0]
    question, answer = seeded(item["question"]), seeded(item["answer"])
    assessment = gated(statute_repository, answer, question)
    for session_id in ("session-1", "session-2"):
        record_result(
            audit_engine,
            answer,
            assessment,
            repo=statute_repository,
            pseudonymizer=pseudonymizer,
            store=store,
            session_id=session_id,
            question=question,
            now=NOW,
        )
    cases, attempts = rows(audit_engine, CASE_TABLE), rows(audit_engine, ATTEMPT_TABLE)
    assert len(cases) == len(attempts) == 2
    assert cases[0].question == cases[1].question and "[手机号]" in cases[0].question
    assert attempts[0].standards == attempts[1].standards
    stored = repr([*cases, *attempts, *rows(audit_engine, CITATION_TABLE)])
    assert not [seed for seed in SEEDS if seed in stored]


@ONLY_SQLITE_STATUTES
def test_verdict_details_are_kept_per_citation(
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
) -> None:
    """An invented article keeps the law's real article count, a repealed law its date."""
    answer = (
        "根据《中华人民共和国民法典》第一千三百条，合同无效。\n"
        "依照《中华人民共和国合同法》第五十二条，恶意串通的合同无效。"
    )
    record_result(
        audit_engine,
        answer,
        gated(statute_repository, answer),
        repo=statute_repository,
        pseudonymizer=pseudonymizer,
        store=store,
        session_id="s",
    )
    by_law = {row.law: row for row in rows(audit_engine, CITATION_TABLE)}
    invented = by_law["中华人民共和国民法典"]
    assert (invented.reason, invented.article, invented.article_count) == (
        "article_not_found",
        1300,
        1260,
    )
    assert invented.provision == "《中华人民共和国民法典》第一千三百条"
    repealed = by_law["中华人民共和国合同法"]
    assert (repealed.status, repealed.reason, repealed.repealed_on) == (
        "deprecated",
        "repealed",
        date(2021, 1, 1),
    )
    (attempt,) = rows(audit_engine, ATTEMPT_TABLE)
    signals = {f["signal"]: f for f in attempt.failures}
    assert signals["article_not_found"]["article_count"] == 1260
    assert signals["repealed"]["repealed_on"] == "2021-01-01"


@ONLY_SQLITE_STATUTES
def test_each_attempt_of_a_round_is_recorded_into_its_case(
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    dev_answers: list[dict[str, Any]],
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
) -> None:
    """A round recorded after each answer makes one case whose attempts grow and whose state
    follows the round."""
    round_, other = rerun_round(statute_repository, dev_answers, RAW_SESSION)
    case_id = record(
        audit_engine,
        round_,
        repo=statute_repository,
        pseudonymizer=pseudonymizer,
        store=store,
        subject_id=RAW_SUBJECT,
        now=NOW,
    )
    assert rows(audit_engine, CASE_TABLE)[0].state == "open"
    round_ = gate.submit(round_, other, repo=statute_repository)
    later = NOW + timedelta(minutes=1)
    again = record(
        audit_engine,
        round_,
        repo=statute_repository,
        pseudonymizer=pseudonymizer,
        store=store,
        subject_id=RAW_SUBJECT,
        case_id=case_id,
        now=later,
    )
    assert again == case_id
    (case,) = rows(audit_engine, CASE_TABLE)
    attempts = rows(audit_engine, ATTEMPT_TABLE)
    assert (case.state, case.attempt_count, case.updated_at) == (round_.state, 2, later)
    assert case.recorded_at == NOW
    assert attempts[0].rerun_requested
    assert [(a.attempt, a.decision, a.rerun_requested) for a in attempts] == [
        (r.attempt, r.decision, r.rerun_request is not None) for r in round_.attempts
    ]
    assert attempts[1].injected_facts == [
        {"kind": f.kind, "text": f.text, "law": f.law, "provision": f.provision}
        for f in round_.attempts[1].injected_facts
    ]


@pytest.mark.parametrize(
    "change",
    ["other_session", "other_subject", "other_answer", "unknown_case"],
    ids=["other-session", "other-subject", "other-answer", "unknown-case"],
)
@ONLY_SQLITE_STATUTES
def test_a_round_that_does_not_continue_the_case_is_refused(
    change: str,
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    dev_answers: list[dict[str, Any]],
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
) -> None:
    """Continuing a case with another session, subject or first answer writes nothing."""
    round_, other = rerun_round(statute_repository, dev_answers, RAW_SESSION)
    common = {"repo": statute_repository, "pseudonymizer": pseudonymizer, "store": store}
    case_id = record(audit_engine, round_, subject_id=RAW_SUBJECT, **common)
    before = row_counts(audit_engine)
    subject = RAW_SUBJECT
    if change == "other_session":
        round_ = round_.model_copy(update={"session_id": "another-session"})
    elif change == "other_subject":
        subject = "another-subject"
    elif change == "other_answer":
        replaced = round_.attempts[0].model_copy(update={"answer": other})
        round_ = round_.model_copy(update={"attempts": (replaced,)})
    else:
        case_id = "0" * 32
    with pytest.raises(CaseMismatchError):
        record(audit_engine, round_, subject_id=subject, case_id=case_id, **common)
    assert row_counts(audit_engine) == before


@ONLY_SQLITE_STATUTES
def test_a_failed_write_leaves_no_row(
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    dev_answers: list[dict[str, Any]],
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
) -> None:
    """A constraint violation after the case row was inserted (two attempts numbered 1)
    raises AuditWriteError and rolls back the case, its attempts and citations."""
    round_, _ = rerun_round(statute_repository, dev_answers, RAW_SESSION)
    broken = round_.model_copy(update={"attempts": (round_.attempts[0], round_.attempts[0])})
    common = {"repo": statute_repository, "pseudonymizer": pseudonymizer, "store": store}
    with pytest.raises(AuditWriteError):
        record(audit_engine, broken, **common)
    assert row_counts(audit_engine) == {table.name: 0 for table in TABLES}
    good = Recording(round_, recorded_at=NOW)
    with pytest.raises(AuditWriteError):
        record_many(audit_engine, [good, Recording(broken, recorded_at=NOW)], **common)
    assert row_counts(audit_engine) == {table.name: 0 for table in TABLES}
    record_many(audit_engine, [good], **common)
    assert row_counts(audit_engine)["audit_case"] == 1


@ONLY_SQLITE_STATUTES
def test_a_check_of_another_answer_is_refused(
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
) -> None:
    """A verifier check that does not belong to the answer is caught before anything is
    written: the failures' citations must be the check's."""
    answer = "根据《中华人民共和国民法典》第一千三百条，合同无效。"
    unrelated = gated(statute_repository, "前言。" + answer).check
    mixed = gate.Assessment(check=unrelated, result=gated(statute_repository, answer).result)
    with pytest.raises(CaseMismatchError):
        record_result(
            audit_engine,
            answer,
            mixed,
            repo=statute_repository,
            pseudonymizer=pseudonymizer,
            store=store,
            session_id="s",
        )
    assert row_counts(audit_engine) == {table.name: 0 for table in TABLES}


@ONLY_SQLITE_STATUTES
def test_a_naive_time_is_refused(
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
) -> None:
    """A time without a timezone cannot be put in a quarter: refused, nothing written."""
    answer = "根据《中华人民共和国民法典》第一千零八十七条，离婚时夫妻的共同财产由双方协议处理。"
    with pytest.raises(AuditWriteError, match="timezone"):
        record_result(
            audit_engine,
            answer,
            gated(statute_repository, answer),
            repo=statute_repository,
            pseudonymizer=pseudonymizer,
            store=store,
            session_id="s",
            now=datetime(2026, 11, 2, 9, 30),
        )
    assert row_counts(audit_engine)["audit_case"] == 0


@ONLY_SQLITE_STATUTES
def test_trace_resolves_pseudonyms_to_sessions_and_their_cases(
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    dev_answers: list[dict[str, Any]],
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
) -> None:
    """From a session pseudonym to the session id and its cases; from a subject pseudonym
    to the subject and every case of theirs, oldest first."""
    common = {"repo": statute_repository, "pseudonymizer": pseudonymizer, "store": store}
    recorded = {}
    for index, (session, moment) in enumerate(
        [(RAW_SESSION, NOW), (RAW_SESSION, NOW + timedelta(hours=1)), ("other", NOW)]
    ):
        item = dev_answers[index]
        recorded[index] = record_result(
            audit_engine,
            item["answer"],
            gated(statute_repository, item["answer"], item["question"]),
            session_id=session,
            question=item["question"],
            subject_id=RAW_SUBJECT,
            now=moment,
            **common,
        )
    session = pseudonymizer.pseudonym(PseudonymKind.SESSION, RAW_SESSION)
    found = trace(audit_engine, session, store)
    assert (found.entry.kind, found.entry.raw_id) == ("sess", RAW_SESSION)
    assert [case.case_id for case in found.cases] == [recorded[0], recorded[1]]
    assert [len(case.attempts) for case in found.cases] == [1, 1]
    assert (
        found.cases[0].attempts[0].answer_sha256
        == hashlib.sha256(dev_answers[0]["answer"].encode()).hexdigest()
    )
    by_subject = trace(audit_engine, pseudonymizer.pseudonym("subj", RAW_SUBJECT), store)
    assert by_subject.entry.raw_id == RAW_SUBJECT
    assert {case.case_id for case in by_subject.cases} == set(recorded.values())
    with pytest.raises(TraceError, match="not in the mapping store"):
        trace(audit_engine, pseudonymizer.pseudonym("sess", "never-recorded"), store)
    with pytest.raises(TraceError, match="not a pseudonym"):
        trace(audit_engine, RAW_SESSION, store)


def test_the_mapping_store_file_has_mode_0600(tmp_path: Path, pseudonymizer: Pseudonymizer) -> None:
    """The store the recorder writes to is created private (0600), whatever the umask."""
    previous = os.umask(0o022)
    try:
        store = MappingStore(tmp_path / "var" / "map.sqlite3")
        store.record_many([(pseudonymizer.pseudonym("sess", RAW_SESSION), "sess", RAW_SESSION)])
    finally:
        os.umask(previous)
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600


@pytest.fixture
def cli_environment(
    tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, Path]]:
    """Settings for the CLI: this test's database, a store path, the tests' secret."""
    paths = {"store": tmp_path / "private" / "pseudonym-map.sqlite3"}
    monkeypatch.setenv("LEXGATE_DATABASE_URL", database_url)
    monkeypatch.setenv("LEXGATE_MAPPING_STORE_PATH", str(paths["store"]))
    monkeypatch.setenv("LEXGATE_AUDIT_SECRET", SECRET.decode())
    get_settings.cache_clear()
    yield paths
    get_settings.cache_clear()


@ONLY_SQLITE_STATUTES
def test_cli_trace_prints_the_session_and_its_cases(
    cli_environment: dict[str, Path],
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    dev_answers: list[dict[str, Any]],
    pseudonymizer: Pseudonymizer,
) -> None:
    """`lexgate audit trace` names the real session and lists its case; a pseudonym this
    store never saw exits 1."""
    store = MappingStore(cli_environment["store"])
    item = dev_answers[0]
    case_id = record_result(
        audit_engine,
        item["answer"],
        gated(statute_repository, item["answer"], item["question"]),
        repo=statute_repository,
        pseudonymizer=pseudonymizer,
        store=store,
        session_id=RAW_SESSION,
        now=NOW,
    )
    session = pseudonymizer.pseudonym("sess", RAW_SESSION)
    shown = CliRunner().invoke(app, ["audit", "trace", session])
    assert shown.exit_code == 0, shown.output
    assert f"session {RAW_SESSION!r}" in shown.output and case_id in shown.output
    assert "2026-11-02 09:30 CST" in shown.output  # in LEXGATE_TIMEZONE
    unknown = CliRunner().invoke(app, ["audit", "trace", pseudonymizer.pseudonym("sess", "x")])
    assert unknown.exit_code == 1 and "not in the mapping store" in unknown.output


def test_cli_trace_without_the_mapping_store_says_so(
    cli_environment: dict[str, Path],
    pseudonymizer: Pseudonymizer,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Away from the server (SQLite: no mapping store; PostgreSQL: no store key to open the
    database's mapping), trace explains why it cannot and exits 1, creating nothing."""
    missing_key = cli_environment["store"].with_name("store.key")
    monkeypatch.delenv("LEXGATE_STORE_KEY")
    monkeypatch.setenv("LEXGATE_STORE_KEY_PATH", str(missing_key))
    result = CliRunner().invoke(app, ["audit", "trace", pseudonymizer.pseudonym("sess", "x")])
    assert result.exit_code == 1
    if database_url.startswith("sqlite"):
        assert "no pseudonym mapping store" in result.output
        assert "only be traced on the server" in result.output
    else:
        assert f"no store key file at {missing_key}" in result.output
        assert "lexgate audit init" in result.output
    assert not cli_environment["store"].exists() and not missing_key.exists()


def test_seeds_are_what_masking_replaces() -> None:
    """Guard: each seeded string is personal data that masking replaces by its placeholder."""
    from audit.masking import mask_pii

    masked = mask_pii(seeded("正文"))
    assert not [seed for seed in SEEDS if seed in masked.text]
    assert {kind.value for kind in masked.counts} == {"mobile", "id_card", "email", "bank_card"}


@given(st.text(max_size=HASH_PIECE * 2), st.integers(0, 3))
def test_answer_sha256_is_the_sha256_of_the_utf8(text: str, pieces: int) -> None:
    """answer_sha256 (hashed in pieces) is hashlib's sha256 of the whole UTF-8 text."""
    answer = text + "中" * (HASH_PIECE * pieces // 3) + text
    assert answer_sha256(answer) == hashlib.sha256(answer.encode("utf-8")).hexdigest()


@pytest.mark.parametrize(
    "policies",
    [
        ["default", "default", "default"],
        ["default", "strict", "default", "strict"],
        ["fresh", "default", "fresh", "fresh"],
    ],
)
def test_a_case_rows_policy_columns_are_its_own(policies: list[str]) -> None:
    """The policy id and JSON of a case row, whichever policy object came before: the same
    as computed afresh (fails when the last object's columns are given to another)."""
    from audit.recorder import _policy_columns, canonical_json
    from gate.policy import Policy, default_policy

    made = {"default": default_policy, "strict": lambda: Policy(strict=True), "fresh": Policy}
    for name in policies:
        policy = made[name]()
        dumped = policy.model_dump(mode="json")
        expected = hashlib.sha256(canonical_json(dumped).encode()).hexdigest()[:16]
        assert _policy_columns(policy) == (expected, dumped)
    assert default_policy() is default_policy()
    assert default_policy() == Policy()
