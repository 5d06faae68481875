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
from gate.models import Assessment, Judgements, Turn
from gate.policy import Policy
from legaldb.repository import StatuteRepository


def assess_answer(
    answer: str,
    *,
    repo: StatuteRepository,
    as_of: date,
    turn: Turn = Turn(),
    policy: Policy | None = None,
    judge: Judge | None = None,
    threshold: float = DEFAULT_THRESHOLD,
) -> Assessment:
    """Check, judge (when a judge is given) and decide on one answer of a turn as of as_of;
    `.result` is the gate's result alone."""
    check = verifier.check(answer, repo, as_of)
    judgements = (
        judge_verdicts(check.verdicts, judge, threshold=threshold)
        if judge is not None
        else Judgements()
    )
    result = assess(check, answer, turn=turn, policy=policy, repo=repo, judgements=judgements)
    return Assessment(check=check, result=result)


__all__ = ["assess_answer"]
