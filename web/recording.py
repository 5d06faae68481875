"""POST /api/v1/gate as a service: gate an answer, continue its session's round, record it.

The assessment is the gate's (`gate.assess_answer`, kept whole by `record_attempt` in the
round); the record is the audit module's (`audit.record`, which serialises the attempts and
queues their unsure judgements for review). The round between requests lives in the
`RoundStore`. One request writes the audit tables in one transaction. The next answer of a kept round is recorded inside the round
store's write transaction (two answers of one session are serialised; if the audit write fails,
neither changes and the caller gets a 503). The first answer of a round is recorded without it,
so new rounds are gated in parallel; the lock is then taken only to keep the round while it is
open (if that fails, the answer is recorded and the caller gets a 503: its retry starts a new
case).
"""

from __future__ import annotations

import logging
import threading
import uuid
from dataclasses import dataclass
from datetime import date

from sqlalchemy.engine import Engine

from audit import MappingStore, Pseudonymizer, record
from audit.errors import AuditError, CaseMismatchError
from audit.models import PseudonymKind
from gate import Policy, assess_answer
from gate.judge import DEFAULT_THRESHOLD, Judge
from gate.models import RoundRecord
from gate.rounds import open_round, record_attempt
from legaldb import StatuteRepository
from lexgate.factories import judge_from_settings, pseudonymizer_from_settings
from lexgate.settings import Settings
from web.errors import AuditUnavailable, RoundConflict
from web.rounds import OpenRound, RoundStore

log = logging.getLogger("lexgate.web")


@dataclass(frozen=True, slots=True)
class AuditTools:
    """What recording needs beyond the database: the pseudonymizer and the two private stores."""

    pseudonymizer: Pseudonymizer
    mappings: MappingStore
    rounds: RoundStore
    judge: Judge | None = None  # the model judge, when LEXGATE_JUDGE_ENABLED (docs/judge.md)
    judge_threshold: float = DEFAULT_THRESHOLD


class AuditToolsHolder:
    """The process's AuditTools, made on first use (the secret file and stores may be created
    then) and retried on each request until that works."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
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
                    self._tools = AuditTools(
                        pseudonymizer_from_settings(settings),
                        MappingStore(settings.mapping_store_path),
                        RoundStore(settings.web_round_store_path),
                        judge_from_settings(settings),
                        settings.judge_threshold,
                    )
                except (AuditError, OSError) as error:
                    raise AuditUnavailable(f"the audit trail is unavailable: {error}") from error
            return self._tools


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

    engine: Engine
    repo: StatuteRepository
    tools: AuditTools
    subject_id: str | None
    after: RoundRecord

    def write(self, case_id: str | None) -> str:
        """Record the attempt (in case_id, or a new case); its case id. CaseMismatchError when
        case_id's record does not hold the round's earlier answers; AuditUnavailable when the
        audit trail cannot be written."""
        try:
            written = record(
                self.engine,
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
    assessment = assess_answer(
        request.answer,
        repo=repo,
        as_of=date.fromisoformat(current.as_of),
        question=current.question,
        policy=current.policy,
        session_id=session_id,
        attempt=len(current.attempts) + 1,
        judge=tools.judge,
        threshold=tools.judge_threshold,
    )
    after = record_attempt(current, request.answer, assessment)
    recording = _Recording(engine, repo, tools, request.subject_id, after)
    if continuing and case_id is not None:
        case_id = _next_answer(tools.rounds, session, subject, current, case_id, recording)
    else:
        case_id = _new_round(tools.rounds, session, subject, found is not None, recording)
    return GateOutcome(session_id=session_id, case_id=case_id, round=after)


def _new_round(
    rounds: RoundStore, session: str, subject: str | None, replaces: bool, recording: _Recording
) -> str:
    """Record the first answer of a new round; its case id.

    Nothing kept is read, so the record is written outside the round store's lock (gates of new
    rounds run in parallel); the lock is taken only to keep the round while it is open, or to
    forget the session's earlier round it `replaces`.
    """
    case_id = recording.write(None)
    keep = recording.after.state == "open"
    if keep or replaces:
        with rounds.transaction() as transaction:
            if keep:
                transaction.put(session, subject, case_id, recording.after)
            else:
                transaction.delete(session)
    return case_id


def _next_answer(
    rounds: RoundStore,
    session: str,
    subject: str | None,
    current: RoundRecord,
    case_id: str,
    recording: _Recording,
) -> str:
    """Record the next answer of the kept round `current` under the round store's lock, after
    checking that no other answer of the session continued it meanwhile; its case id."""
    mismatch: CaseMismatchError | None = None
    with rounds.transaction() as transaction:
        stored = transaction.get(session)
        if stored is None or stored.record != current:
            raise RoundConflict(
                "another answer of this session was gated meanwhile; send it again",
                field="attempt",
            )
        try:
            case_id = recording.write(case_id)
        except CaseMismatchError as error:
            mismatch = error  # the kept round is useless: forget it (committed), then refuse
            transaction.delete(session)
        else:
            if recording.after.state == "open":
                transaction.put(session, subject, case_id, recording.after)
            else:
                transaction.delete(session)
    if mismatch is not None:
        raise RoundConflict(
            f"the round no longer matches its audit record ({mismatch}); start a new one "
            "with attempt 1",
            field="session_id",
        )
    return case_id


__all__ = [
    "AuditTools",
    "AuditToolsHolder",
    "GateOutcome",
    "GateRequestData",
    "gate_and_record",
]
