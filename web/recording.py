"""POST /api/v1/gate as a service: gate an answer, continue its session's round, record it.

The assessment is the gate's (`gate.rounds.submit`: `gate.assess_answer` of the round's next
turn, kept whole by `record_attempt` in the round); the record is the audit module's (`audit.record`, which serialises the attempts and
queues their unsure judgements for review). The round between requests lives in the round
store (`web.rounds`: a private file on one machine, the database with several hosts).

The answer is assessed with nothing locked; then, in `RoundStore.settle`, its audit record is
written and its round kept or dropped. Answers of one session are serialised by that session
only (its round's row, or its audit case's row); answers of other sessions never wait for
them. With the database store the record and the round commit in one short transaction; if
the write fails neither changes and the caller gets a 503. With the file store the record
commits first: if keeping the round then fails, the caller gets a 503 and its retry starts a
new case.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from audit import Pseudonymizer
from audit.errors import AuditError, CaseMismatchError, CaseMovedOnError
from audit.ids import random_hex
from audit.mapping_store import DatabaseMappingStore, MappingStore, PseudonymStore
from audit.models import PseudonymKind, Recording
from audit.recorder import prepare_records, write_records
from gate import Policy
from gate.facts import compile_templates
from gate.judge import DEFAULT_THRESHOLD, Judge
from gate.models import RoundRecord
from gate.rounds import open_round, submit
from legaldb import StatuteRepository
from lexgate.factories import (
    judge_from_settings,
    pseudonymizer_from_settings,
    store_keys_from_settings,
)
from lexgate.settings import Settings
from web.errors import AuditUnavailable, RoundConflict
from web.rounds import (
    MOVED_ON,
    DatabaseRoundStore,
    FileRoundStore,
    OpenRound,
    RoundStore,
    Settlement,
    Version,
)
from web.writer import RecordWriter

log = logging.getLogger("lexgate.web")
Result = TypeVar("Result")


@dataclass(frozen=True, slots=True)
class AuditTools:
    """What recording needs beyond the database: the pseudonymizer and the two private stores
    (files on one machine, the database's sealed tables with PostgreSQL)."""

    pseudonymizer: Pseudonymizer
    mappings: PseudonymStore
    rounds: RoundStore
    judge: Judge | None = None  # the model judge, when LEXGATE_JUDGE_ENABLED (docs/judge.md)
    judge_threshold: float = DEFAULT_THRESHOLD


class AuditToolsHolder:
    """The process's AuditTools, made on first use (the secret file and stores may be created
    then) and retried on each request until that works."""

    def __init__(self, settings: Settings, engine: Engine) -> None:
        self._settings = settings
        self._engine = engine
        self._tools: AuditTools | None = None
        self._lock = threading.Lock()

    @property
    def made(self) -> AuditTools | None:
        """The tools once made (no I/O), else None."""
        return self._tools

    def get(self) -> AuditTools:
        """The tools; AuditUnavailable when the secret or a store cannot be opened."""
        if self._tools is not None:
            return self._tools
        with self._lock:
            if self._tools is None:
                settings = self._settings
                try:
                    mappings, rounds = private_stores(settings, self._engine)
                    self._tools = AuditTools(
                        pseudonymizer_from_settings(settings),
                        mappings,
                        rounds,
                        judge_from_settings(settings),
                        settings.judge_threshold,
                    )
                except (AuditError, OSError) as error:
                    raise AuditUnavailable(f"the audit trail is unavailable: {error}") from error
            return self._tools


def private_stores(settings: Settings, engine: Engine) -> tuple[PseudonymStore, RoundStore]:
    """The pseudonym mapping and the round store: in the database (sealed with the store
    keys) when it is PostgreSQL, so that several hosts share them; else private files."""
    if engine.dialect.name == "postgresql":
        keys = store_keys_from_settings(settings)
        return DatabaseMappingStore(engine, keys), DatabaseRoundStore(engine, keys)
    return MappingStore(settings.mapping_store_path), FileRoundStore(settings.web_round_store_path)


@dataclass(frozen=True, slots=True)
class GateRequestData:
    """One POST /gate request, after validation."""

    answer: str
    question: str | None
    subject_id: str | None
    session_id: str | None
    attempt: int | None
    as_of: date | None


@dataclass(frozen=True, slots=True)
class GateOutcome:
    """The round after the answer, its audit case and the session to continue it under."""

    session_id: str
    case_id: str
    round: RoundRecord


def new_session_id() -> str:
    """A session id for a caller that gave none (random: nothing about the caller in it)."""
    return f"web-{random_hex()}"


def _continues(found: OpenRound | None, request: GateRequestData) -> bool:
    """Whether the request is the next answer of the open round (409 when it cannot be)."""
    if request.attempt == 1:
        return False
    if found is None:
        if request.attempt is not None:
            raise RoundConflict(
                f"attempt {request.attempt}: this session has no open round; send attempt 1 "
                "(or none) to start one",
                field="attempt",
            )
        return False
    record_ = found.record
    same_question = request.question is None or request.question == record_.question
    same_day = request.as_of is None or request.as_of.isoformat() == record_.as_of
    if request.attempt is None:
        return same_question and same_day  # a new question (or day) starts a new round
    expected = len(record_.attempts) + 1
    if request.attempt != expected:
        raise RoundConflict(
            f"attempt {request.attempt}: the session's open round expects attempt {expected}",
            field="attempt",
        )
    if not same_question:
        raise RoundConflict("the question differs from the open round's", field="question")
    if not same_day:
        raise RoundConflict(f"the open round is gated as of {record_.as_of}", field="as_of")
    return True


@dataclass(frozen=True, slots=True)
class GatedAnswer:
    """An answer assessed in its round, not yet recorded: what `settle` writes."""

    session_id: str
    session: str  # the session's pseudonym
    subject_id: str | None
    subject: str | None  # the subject's pseudonym
    expected: Version | None  # the kept round the answer continues (None: a new round)
    found: OpenRound | None  # the session's kept round, read before the assessment
    after: RoundRecord  # the round with the answer's attempt
    repo: StatuteRepository
    tools: AuditTools


def find_round(request: GateRequestData, tools: AuditTools) -> OpenRound | None:
    """The kept round of the request's session (reads the round store; None without one)."""
    if request.session_id is None:
        return None
    session = tools.pseudonymizer.pseudonym(PseudonymKind.SESSION.value, request.session_id)
    return tools.rounds.get(session)


def assess_request(
    request: GateRequestData,
    found: OpenRound | None,
    *,
    repo: StatuteRepository,
    tools: AuditTools,
    today: date,
    policy: Policy | None = None,
) -> GatedAnswer:
    """Gate the answer as the next turn of `found` (`find_round`'s), or of a new round: no
    database write (the judge, when configured, is asked over HTTP)."""
    session_id = request.session_id or new_session_id()
    pseudonymizer = tools.pseudonymizer
    session = pseudonymizer.pseudonym(PseudonymKind.SESSION.value, session_id)
    subject = (
        pseudonymizer.pseudonym(PseudonymKind.SUBJECT.value, request.subject_id)
        if request.subject_id is not None
        else None
    )
    continuing = _continues(found, request)
    if continuing and found is not None:
        if found.subject != subject:
            raise RoundConflict(
                "the session's open round belongs to another subject", field="subject_id"
            )
        current, case_id = found.record, found.case_id
    else:
        current = open_round(
            session_id=session_id,
            question=request.question,
            as_of=request.as_of or today,
            policy=policy,
        )
        case_id = None
    after = submit(
        current, request.answer, repo=repo, judge=tools.judge, threshold=tools.judge_threshold
    )
    expected = Version(case_id, len(current.attempts)) if case_id is not None else None
    return GatedAnswer(
        session_id, session, request.subject_id, subject, expected, found, after, repo, tools
    )


def settle(gated: GatedAnswer, engine: Engine) -> GateOutcome:
    """Record the gated answer and keep its round (or forget the round it ends or replaces),
    serialised with the session's other answers only. RoundConflict (409) when the session's
    round moved on meanwhile or no longer matches its record; AuditUnavailable (503) when the
    record cannot be written."""
    try:
        [outcome] = _settle_together([gated], engine)
    except CaseMovedOnError as error:
        raise RoundConflict(MOVED_ON, field="attempt") from error
    except CaseMismatchError as mismatch:
        gated.tools.rounds.forget(gated.session)  # the kept round is useless: forget it
        raise RoundConflict(
            f"the round no longer matches its audit record ({mismatch}); start a new one "
            "with attempt 1",
            field="session_id",
        ) from mismatch
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome


def settle_many(gated: Sequence[GatedAnswer], engine: Engine) -> list[GateOutcome | BaseException]:
    """`settle` of several gated answers (of one process's AuditTools) in one transaction:
    their outcomes, or the exception each is answered with. When that transaction fails
    before anything of it is committed, each answer is settled alone, so that a failure
    (a 409, a write refused) is its own answer's only; so are answers of one session (the
    second continues the round the first leaves). When the connection was lost once the
    transaction was complete, all are answered with that error (503) and none is written
    again: a commit whose reply was lost may have taken effect, and writing its answers again
    would record them twice (the client's retry is told apart by nothing either)."""
    if len(gated) > 1 and len({answer.session for answer in gated}) == len(gated):
        try:
            return _settle_together(gated, engine)
        except Exception as error:
            log.info("%d gated answers settled one by one: %s", len(gated), error)
    outcomes: list[GateOutcome | BaseException] = []
    for answer in gated:
        try:
            outcomes.append(settle(answer, engine))
        except Exception as error:  # the caller's to raise: 409, 503
            outcomes.append(error)
    return outcomes


def _connection_lost(error: BaseException) -> bool:
    """Whether error (or what caused it) is the database connection lost (SQLAlchemy's
    dialect tells a disconnect apart), as opposed to a refusal that is certain: a conflict, a
    row refused, SQLite's commit failing (nothing of it is kept then)."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, sa.exc.DBAPIError) and cause.connection_invalidated:
            return True
        cause = cause.__cause__
    return False


def _settle_together(
    gated: Sequence[GatedAnswer], engine: Engine
) -> list[GateOutcome | BaseException]:
    """One settlement of all the answers (`RoundStore.settle`): their audit records in one
    transaction, their rounds kept or forgotten. Raises when nothing of it was committed;
    after the records are committed, an answer whose round could not be kept is answered
    AuditUnavailable (its case stays recorded) and the others are settled."""
    tools = gated[0].tools
    settlements: list[Settlement] = []
    case_ids: list[str] = []
    failure: Exception | None = None
    complete = False  # the block has run: what fails now may be the commit itself
    # The rows are made before the store's transaction: on one machine it holds the lock the
    # workers' writers take turns on.
    prepared = _audit_errors(
        lambda: prepare_records(
            [
                Recording(
                    answer.after,
                    answer.subject_id,
                    case_id=answer.expected.case_id if answer.expected is not None else None,
                )
                for answer in gated
            ],
            repo=gated[0].repo,
            pseudonymizer=tools.pseudonymizer,
        )
    )
    try:
        with tools.rounds.settle(engine, [(g.session, g.expected) for g in gated]) as settlements:
            bind = settlements[0].bind
            case_ids = _audit_errors(lambda: write_records(bind, prepared, store=tools.mappings))
            for answer, settlement, case_id in zip(gated, settlements, case_ids, strict=True):
                if answer.after.state == "open":
                    settlement.keep(answer.subject, case_id, answer.after)
                elif answer.expected is not None or answer.found is not None:
                    settlement.forget()
            complete = True
    except Exception as error:
        if complete and _connection_lost(error):
            log.warning("%d gated answers: commit not confirmed: %s", len(gated), error)
            return [error] * len(gated)
        if not any(settlement.recorded for settlement in settlements):
            raise
        failure = error  # recorded; the rounds it changes could not be kept or dropped
    return [
        failure
        if failure is not None and settlement.changes_round
        else GateOutcome(answer.session_id, case_id, answer.after)
        for answer, settlement, case_id in zip(gated, settlements, case_ids, strict=True)
    ]


def _audit_errors(work: Callable[[], Result]) -> Result:
    """work(): the audit records made or written. CaseMismatchError (the caller's: a 409) when a
    kept round's case does not hold the round's earlier answers (CaseMovedOnError: it holds
    this attempt already); AuditUnavailable (a 503) when the audit trail cannot be written."""
    try:
        return work()
    except CaseMismatchError:
        raise  # an AuditError too, but the caller's to handle (409)
    except AuditError as error:
        log.warning("gate request not recorded: %s", error)
        raise AuditUnavailable(
            "the answer was not gated: its audit record could not be written"
        ) from error


GateWriter = RecordWriter[GatedAnswer, GateOutcome]
"""The process's writer thread of gated answers: `settle_many` over the app's engine."""


def gate_writer(engine: Engine) -> GateWriter:
    """A writer thread settling the gated answers queued together (`settle_many`)."""
    return RecordWriter(lambda gated: settle_many(gated, engine))


WARM_UP_ANSWERS = (
    "根据《中华人民共和国民法典》第一百四十三条规定，具备下列条件的民事法律行为有效：（一）行为人"
    "具有相应的民事行为能力；（二）意思表示真实；（三）不违反法律、行政法规的强制性规定，不违背"
    "公序良俗。",
    "依照《中华人民共和国合同法》第五十二条，有下列情形之一的，合同无效。根据刑法第一百三十三条"
    "之一的规定，醉酒驾驶机动车的，处六个月以上一年以下有期徒刑，并处罚金。",
    "建议您与对方协商解决，协商不成的，可以向人民法院起诉。",
)
"""Answers a worker gates (and records nowhere) before it takes requests: a quote, a repealed
law, a law named without 《》, a sentence claim, none."""


def warm_up(repo: StatuteRepository, today: date) -> None:
    """Gate WARM_UP_ANSWERS without recording them, so that the first requests a worker takes
    do not pay for what the check and the decision load on first use (the extractor's grammar
    and lexicon, the templates, patterns): without it each worker's first requests took
    50-190 ms of CPU each, and those that queued behind them waited seconds."""
    compile_templates()
    for answer in WARM_UP_ANSWERS:
        submit(open_round(session_id="warm-up", question="醉驾会影响孩子报考吗？", as_of=today),
               answer, repo=repo)  # fmt: skip


def gate_and_record(
    request: GateRequestData,
    *,
    engine: Engine,
    repo: StatuteRepository,
    tools: AuditTools,
    today: date,
    policy: Policy | None = None,
) -> GateOutcome:
    """Gate the answer in its round and record it; the round is kept while it stays open."""
    found = find_round(request, tools)
    gated = assess_request(request, found, repo=repo, tools=tools, today=today, policy=policy)
    return settle(gated, engine)


__all__ = [
    "AuditTools",
    "AuditToolsHolder",
    "GateOutcome",
    "GateRequestData",
    "GateWriter",
    "GatedAnswer",
    "assess_request",
    "find_round",
    "gate_and_record",
    "gate_writer",
    "settle",
    "settle_many",
    "warm_up",
]
