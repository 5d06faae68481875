"""Rounds: the first answer and its fact-injected reruns, every attempt recorded.

A round is an immutable `RoundRecord`; `submit` returns the next record. The gate's own loop
(`run`, with a `Regenerator`) and a caller that regenerates by itself (feeding each new answer
to `submit`, or to a `Round`, under the same session id) build the very same record.
"""

from __future__ import annotations

import logging
from datetime import date
from typing import NotRequired, TypedDict, Unpack

from gate.assessment import assess_answer
from gate.decide import wants_rerun
from gate.errors import RegeneratorError, RoundClosedError
from gate.judge import DEFAULT_THRESHOLD, Judge
from gate.models import (
    Assessment,
    AttemptRecord,
    Decided,
    Delivery,
    Fact,
    RerunRequest,
    RoundRecord,
    RoundState,
)
from gate.policy import Policy, default_policy
from gate.regenerator import Regenerator
from legaldb.repository import StatuteRepository

logger = logging.getLogger(__name__)


def open_round(
    *,
    session_id: str,
    question: str | None,
    as_of: date,
    policy: Policy | None = None,
    max_attempts: int | None = None,
    premise_facts: tuple[Fact, ...] = (),
) -> RoundRecord:
    """A round with no attempt yet; max_attempts defaults to the policy's."""
    policy = policy or default_policy()
    return RoundRecord(
        session_id=session_id,
        question=question,
        as_of=as_of.isoformat(),
        policy=policy,
        max_attempts=max_attempts if max_attempts is not None else policy.max_attempts,
        premise_facts=premise_facts,
    )


def record_attempt(record: RoundRecord, answer: str, assessment: Assessment) -> RoundRecord:
    """The round after an answer the gate has assessed (pure): the attempt, holding the whole
    assessment (check, result, judgements), and the new state."""
    _ensure_open(record)
    result = assessment.result
    attempt = len(record.attempts) + 1
    policy = record.policy
    if record.attempts:
        previous = record.attempts[-1].rerun_request
        injected = record.attempts[-1].facts if previous is not None else ()
    else:
        injected = record.premise_facts
    asked_for_basis = sum(
        1 for a in record.attempts if a.decision == "no_citations" and a.rerun_request
    )
    state: RoundState
    request: RerunRequest | None = None
    if result.decision == "pass":
        state = "passed" if attempt == 1 else "passed_after_rerun"
    elif result.decision == "pass_boundary":
        state = "data_boundary"
    else:
        allowed = wants_rerun(result.decision, policy) and (
            result.decision == "rerun" or asked_for_basis < policy.no_citations_reruns
        )
        if allowed and attempt < record.max_attempts and result.rerun_request is not None:
            state, request = "open", result.rerun_request
        else:
            state = "exhausted"
    decided = {name: getattr(result, name) for name in Decided.model_fields}
    entry = AttemptRecord(
        **{**decided, "rerun_request": request},
        attempt=attempt,
        answer=answer,
        injected_facts=injected,
        check=assessment.check,
    )
    logger.info(
        "session %s attempt %d: %s (rate %s) -> %s",
        record.session_id,
        attempt,
        result.decision,
        "none" if result.verifiable_rate is None else f"{result.verifiable_rate:.2f}",
        state,
    )
    return record.model_copy(
        update={
            "attempts": (*record.attempts, entry),
            "state": state,
            "delivery": _delivery(state, policy),
        }
    )


def _ensure_open(record: RoundRecord) -> None:
    if record.state != "open":
        raise RoundClosedError(
            f"session {record.session_id}: the round ended as {record.state}; "
            "no further attempt is accepted"
        )


def _delivery(state: RoundState, policy: Policy) -> Delivery | None:
    if state == "open":
        return None
    if state in ("exhausted", "regenerator_error"):
        return policy.on_exhausted
    return "deliver_with_badges"


def submit(
    record: RoundRecord,
    answer: str,
    *,
    repo: StatuteRepository,
    judge: Judge | None = None,
    threshold: float = DEFAULT_THRESHOLD,
) -> RoundRecord:
    """Verify and assess the next answer of the round, as of the round's date; with a judge,
    its standing judgements count too (gate.judge)."""
    _ensure_open(record)
    assessment = assess_answer(
        answer,
        repo=repo,
        as_of=date.fromisoformat(record.as_of),
        turn=record.next_turn,
        policy=record.policy,
        judge=judge,
        threshold=threshold,
    )
    return record_attempt(record, answer, assessment)


def fail(record: RoundRecord, error: str) -> RoundRecord:
    """End an open round in regenerator_error: the model gave no next answer."""
    if record.state != "open" or record.rerun_request is None:
        raise RoundClosedError(
            f"session {record.session_id}: no rerun is pending (state {record.state})"
        )
    logger.warning("session %s: regenerator error: %s", record.session_id, error)
    return record.model_copy(
        update={
            "state": "regenerator_error",
            "delivery": _delivery("regenerator_error", record.policy),
            "error": error,
        }
    )


class Round:
    """A round held in memory: feed it answers (and failures) in turn; `record` is the result.

    `Round.start(...)` opens a new round; `Round(record, repo=...)` continues one from its
    record (e.g. one kept as JSON between two HTTP requests).
    """

    def __init__(
        self,
        record: RoundRecord,
        *,
        repo: StatuteRepository,
        judge: Judge | None = None,
        threshold: float = DEFAULT_THRESHOLD,
    ) -> None:
        self.repo = repo
        self.record = record
        self.judge = judge
        self.threshold = threshold

    @classmethod
    def start(
        cls,
        question: str | None,
        *,
        repo: StatuteRepository,
        session_id: str,
        as_of: date,
        policy: Policy | None = None,
        max_attempts: int | None = None,
        premise_facts: tuple[Fact, ...] = (),
        judge: Judge | None = None,
        threshold: float = DEFAULT_THRESHOLD,
    ) -> Round:
        """A new round with no attempt yet."""
        record = open_round(
            session_id=session_id,
            question=question,
            as_of=as_of,
            policy=policy,
            max_attempts=max_attempts,
            premise_facts=premise_facts,
        )
        return cls(record, repo=repo, judge=judge, threshold=threshold)

    @property
    def rerun_request(self) -> RerunRequest | None:
        """What to send to the model for the next attempt; None once the round has ended."""
        return self.record.rerun_request

    @property
    def done(self) -> bool:
        """True once the round is in a terminal state."""
        return self.record.state != "open"

    def submit(self, answer: str) -> AttemptRecord:
        """Assess the next answer; returns its attempt record."""
        self.record = submit(
            self.record, answer, repo=self.repo, judge=self.judge, threshold=self.threshold
        )
        return self.record.attempts[-1]

    def fail(self, error: str) -> None:
        """The model gave no answer to the pending rerun request."""
        self.record = fail(self.record, error)


class RoundOptions(TypedDict):
    """What `run` passes on to `Round.start`: the round's statutes, session, date, policy and
    judge (keyword arguments of both)."""

    repo: StatuteRepository
    session_id: str
    as_of: date
    policy: NotRequired[Policy | None]
    max_attempts: NotRequired[int | None]
    premise_facts: NotRequired[tuple[Fact, ...]]
    judge: NotRequired[Judge | None]
    threshold: NotRequired[float]


def run(
    question: str | None,
    answer: str,
    regenerator: Regenerator | None,
    **options: Unpack[RoundOptions],
) -> RoundRecord:
    """The whole loop: assess the answer, rerun with facts while the policy asks, record all.

    With a judge (gate.judge; off unless configured), each attempt's standing judgements
    count as failures like quote mismatches; unsure ones are left in the attempt's `judged`
    for the review queue.

    Without a regenerator the round stops after the first answer with its rerun request
    pending; the caller regenerates and submits the next one (gate.submit, or Round(record)).
    """
    current = Round.start(question, **options)
    current.submit(answer)
    while regenerator is not None and (request := current.rerun_request) is not None:
        try:
            new_answer = regenerator.regenerate(request)
        except RegeneratorError as exc:
            current.fail(str(exc))
            break
        current.submit(new_answer)
    return current.record


__all__ = ["Round", "RoundOptions", "fail", "open_round", "record_attempt", "run", "submit"]
