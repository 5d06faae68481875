"""The quality gate: the decision on an answer after verification and before delivery.

`assess_answer` is the one path of an answer: it checks the citations, asks the judge (when
given) and decides (pass, rerun, pass_boundary, no_citations) with the verifiable rate, the
quality standards and the facts for a rerun, returning the whole `Assessment`; `assess` is its
pure decision on a check (a `Turn` says which answer of which round it is). `run` drives a whole round of
fact-injected reruns through a `Regenerator` (the HTTP one: `lexgate.llm`); `premise` gives facts for the generation prompt.
"""

from typing import TYPE_CHECKING

from textnorm.lazy import lazy_exports

if TYPE_CHECKING:
    from gate.assessment import assess_answer
    from gate.decide import assess
    from gate.errors import GateError, RegeneratorError, RoundClosedError
    from gate.models import (
        Assessment,
        AttemptRecord,
        Fact,
        GateResult,
        RerunRequest,
        RoundRecord,
        Standard,
        Turn,
    )
    from gate.policy import Policy
    from gate.premise import premise
    from gate.regenerator import Regenerator
    from gate.rounds import Round, fail, open_round, run, submit

__all__ = [
    "Assessment",
    "AttemptRecord",
    "Fact",
    "GateError",
    "GateResult",
    "Policy",
    "Regenerator",
    "RegeneratorError",
    "RerunRequest",
    "Round",
    "RoundClosedError",
    "RoundRecord",
    "Standard",
    "Turn",
    "assess",
    "assess_answer",
    "fail",
    "open_round",
    "premise",
    "run",
    "submit",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "gate.assessment": ("assess_answer",),
        "gate.decide": ("assess",),
        "gate.errors": ("GateError", "RegeneratorError", "RoundClosedError"),
        "gate.models": (
            "Assessment",
            "AttemptRecord",
            "Fact",
            "GateResult",
            "RerunRequest",
            "RoundRecord",
            "Standard",
            "Turn",
        ),
        "gate.policy": ("Policy",),
        "gate.premise": ("premise",),
        "gate.regenerator": ("Regenerator",),
        "gate.rounds": ("Round", "fail", "open_round", "run", "submit"),
    },
)
