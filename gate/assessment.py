"""One answer's assessment: the one path every caller takes (CLI, rounds, web, proxies).

`assess_answer` checks the answer's citations (`verifier.check`), asks the judge about the
claims drawn from them when a judge is given (`gate.judge`), and decides (`gate.assess`). It
returns the `Assessment`: the check, and the gate's result with every judgement. Rounds keep it
whole in their attempts; the audit trail records it as given.
"""

from __future__ import annotations

from datetime import date

import verifier
from gate.decide import assess
from gate.judge import DEFAULT_THRESHOLD, Judge, judge_verdicts
from gate.models import Assessment, GateResult
from gate.policy import Policy
from legaldb.repository import StatuteRepository


def assess_answer(
    answer: str,
    *,
    repo: StatuteRepository,
    as_of: date,
    question: str | None = None,
    policy: Policy | None = None,
    session_id: str | None = None,
    attempt: int = 1,
    judge: Judge | None = None,
    threshold: float = DEFAULT_THRESHOLD,
) -> Assessment:
    """Check, judge (when a judge is given) and decide on one answer as of as_of.

    attempt is the answer's place in its round (a rerun request asks for attempt + 1);
    session_id names the round in that request (default: a digest of question and answer).
    """
    check = verifier.check(answer, repo, as_of)
    judged, judge_error = (
        judge_verdicts(check.verdicts, judge, threshold=threshold)
        if judge is not None
        else ((), None)
    )
    result = assess(
        check,
        answer,
        question=question,
        policy=policy,
        session_id=session_id,
        attempt=attempt,
        repo=repo,
        judged=judged,
        judge_error=judge_error,
    )
    return Assessment(check=check, result=result)


def evaluate(
    answer: str,
    *,
    repo: StatuteRepository,
    as_of: date,
    question: str | None = None,
    policy: Policy | None = None,
    session_id: str | None = None,
    attempt: int = 1,
) -> GateResult:
    """The gate's result alone (`assess_answer` without a judge)."""
    return assess_answer(
        answer,
        repo=repo,
        as_of=as_of,
        question=question,
        policy=policy,
        session_id=session_id,
        attempt=attempt,
    ).result


__all__ = ["assess_answer", "evaluate"]
