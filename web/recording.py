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
import uuid
from dataclasses import dataclass
from datetime import date

from sqlalchemy.engine import Connection, Engine

from audit import Pseudonymizer, record
from audit.errors import AuditError, CaseMismatchError, CaseMovedOnError
from audit.mapping_store import DatabaseMappingStore, MappingStore, PseudonymStore
from audit.models import PseudonymKind
from gate import Policy
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
from web.rounds import MOVED_ON, DatabaseRoundStore, FileRoundStore, OpenRound, RoundStore, Version

log = logging.getLogger("lexgate.web")


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
    return f"web-{uuid.uuid4().hex}"


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
class _Recording:
    """What one gate request writes to the audit trail: the attempt, and its review items."""

    repo: StatuteRepository
    tools: AuditTools
    subject_id: str | None
    after: RoundRecord

    def write(self, bind: Engine | Connection, case_id: str | None) -> str:
        """Record the attempt (in case_id, or a new case) to bind; its case id.
        CaseMismatchError when case_id's record does not hold the round's earlier answers
        (CaseMovedOnError: it holds this attempt already); AuditUnavailable when the audit
        trail cannot be written."""
        try:
            written = record(
                bind,
                self.after,
                repo=self.repo,
                pseudonymizer=self.tools.pseudonymizer,
                store=self.tools.mappings,
                subject_id=self.subject_id,
                case_id=case_id,
            )
        except CaseMismatchError:
            raise  # an AuditError too, but the caller's to handle (409)
        except AuditError as error:
            log.warning("gate request not recorded: %s", error)
            raise AuditUnavailable(
                "the answer was not gated: its audit record could not be written"
            ) from error
        return written


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
    session_id = request.session_id or new_session_id()
    pseudonymizer = tools.pseudonymizer
    session = pseudonymizer.pseudonym(PseudonymKind.SESSION.value, session_id)
    subject = (
        pseudonymizer.pseudonym(PseudonymKind.SUBJECT.value, request.subject_id)
        if request.subject_id is not None
        else None
    )
    found = tools.rounds.get(session) if request.session_id is not None else None
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
    recording = _Recording(repo, tools, request.subject_id, after)
    expected = Version(case_id, len(current.attempts)) if case_id is not None else None
    case_id = _settle(tools.rounds, engine, session, subject, expected, found, recording)
    return GateOutcome(session_id=session_id, case_id=case_id, round=after)


def _settle(
    rounds: RoundStore,
    engine: Engine,
    session: str,
    subject: str | None,
    expected: Version | None,
    found: OpenRound | None,
    recording: _Recording,
) -> str:
    """Record the answer and keep its round (or forget the session's round it ends or
    replaces), serialised with the session's other answers only; its case id."""
    try:
        with rounds.settle(engine, session, expected) as settlement:
            case_id = recording.write(
                settlement.bind, expected.case_id if expected is not None else None
            )
            if recording.after.state == "open":
                settlement.keep(subject, case_id, recording.after)
            elif expected is not None or found is not None:
                settlement.forget()
    except CaseMovedOnError as error:
        raise RoundConflict(MOVED_ON, field="attempt") from error
    except CaseMismatchError as mismatch:
        rounds.forget(session)  # the kept round is useless: forget it, then refuse
        raise RoundConflict(
            f"the round no longer matches its audit record ({mismatch}); start a new one "
            "with attempt 1",
            field="session_id",
        ) from mismatch
    return case_id


__all__ = [
    "AuditTools",
    "AuditToolsHolder",
    "GateOutcome",
    "GateRequestData",
    "gate_and_record",
]
