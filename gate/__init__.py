"""The quality gate: the decision on an answer after verification and before delivery.

`evaluate` decides on one answer (pass, rerun, pass_boundary, no_citations) with the
verifiable rate, the quality standards and the facts for a rerun; `run` drives a whole round of
fact-injected reruns through a `Regenerator`; `premise` gives facts for the generation prompt.
"""

from typing import TYPE_CHECKING

from textnorm.lazy import lazy_exports

if TYPE_CHECKING:
    from gate.decide import assess, evaluate
    from gate.errors import GateError, RegeneratorError, RoundClosedError
    from gate.models import AttemptRecord, Fact, GateResult, RerunRequest, RoundRecord, Standard
    from gate.policy import Policy
    from gate.premise import premise
    from gate.regenerator import OpenAIRegenerator, Regenerator
    from gate.rounds import Round, fail, open_round, run, submit

__all__ = [
    "AttemptRecord",
    "Fact",
    "GateError",
    "GateResult",
    "OpenAIRegenerator",
    "Policy",
    "Regenerator",
    "RegeneratorError",
    "RerunRequest",
    "Round",
    "RoundClosedError",
    "RoundRecord",
    "Standard",
    "assess",
    "evaluate",
    "fail",
    "open_round",
    "premise",
    "run",
    "submit",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "gate.decide": ("assess", "evaluate"),
        "gate.errors": ("GateError", "RegeneratorError", "RoundClosedError"),
        "gate.models": (
            "AttemptRecord",
            "Fact",
            "GateResult",
            "RerunRequest",
            "RoundRecord",
            "Standard",
        ),
        "gate.policy": ("Policy",),
        "gate.premise": ("premise",),
        "gate.regenerator": ("OpenAIRegenerator", "Regenerator"),
        "gate.rounds": ("Round", "fail", "open_round", "run", "submit"),
    },
)
