"""The gate's policy: every threshold and choice of the decision, in one typed, documented object.

docs/gate.md explains each field with the decision rule; `Policy()` is the default policy.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

DEFAULT_CONCLUSION_PATTERNS: tuple[str, ...] = (
    "应当",
    "应该",
    "必须",
    "不得",
    "禁止",
    "有权",
    "无权",
    "可以",
    "依法",
    "赔偿",
    "罚款",
    "罚金",
    "承担[^。；！？\n]{0,15}责任",
    "构成[^。；！？\n]{0,15}罪",
    "判处",
    "有期徒刑",
    "拘役",
    "拘留",
    "无效",
    "违法",
)
"""Regular expressions marking a sentence that states a legal rule or outcome."""


# What happens to the last answer of an exhausted round: delivered with its badges, or refused.
Delivery = Literal["deliver_with_badges", "block"]


class Policy(BaseModel):
    """What the gate decides and how it words reruns; every number can be changed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pass_rate: float = Field(
        default=0.70,
        ge=0.0,
        le=1.0,
        description="Verifiable rate at or above which an answer passes (compared exactly, "
        "as a decimal fraction: 7/10 passes 0.70).",
    )
    strict: bool = Field(
        default=False,
        description="Rerun on any invented article (article/款/项 not found, or a law missing "
        "from a level the data covers completely), even at or above pass_rate.",
    )
    partly: Literal["warn", "rerun"] = Field(
        default="warn",
        description="A citation whose stated content its article supports only in part (the "
        "verifier's support verdict partly: a number, condition or list item changed): warn "
        "marks it (signal content_partly, not correctable) and still counts it as verifiable; "
        "rerun counts it as not verifiable and correctable, like unsupported content.",
    )
    max_attempts: int = Field(
        default=3, ge=1, description="Answers in a round, the first one included."
    )
    no_citations_reruns: int = Field(
        default=1,
        ge=0,
        description="Reruns asking for the legal basis when an answer cites nothing; once "
        "spent, an answer without citations ends the round as exhausted.",
    )
    on_exhausted: Delivery = Field(
        default="deliver_with_badges",
        description="What happens to the last answer of an exhausted round.",
    )
    max_facts: int = Field(
        default=12, ge=1, description="Most facts injected into one rerun request."
    )
    excerpt_chars: int = Field(
        default=160,
        ge=20,
        description="Longest article text quoted in one fact; longer texts are cut with ……",
    )
    long_answer_chars: int = Field(
        default=400,
        ge=1,
        description="Answers at least this long get the tail_coverage standard; shorter "
        "answers pass it as not applicable.",
    )
    tail_fraction: float = Field(
        default=1 / 3,
        gt=0.0,
        lt=1.0,
        description="Share of a long answer, from its end, that tail_coverage calls the tail.",
    )
    conclusion_patterns: tuple[str, ...] = Field(
        default=DEFAULT_CONCLUSION_PATTERNS,
        min_length=1,
        description="Regular expressions of the words that make a sentence a legal "
        "conclusion (conclusions_have_basis, tail_coverage, no-citation reruns).",
    )

    @field_validator("conclusion_patterns")
    @classmethod
    def _patterns_compile(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"invalid conclusion pattern {pattern!r}: {exc}") from None
        return patterns

    def passes(self, verified: int, provisions: int) -> bool:
        """verified / provisions >= pass_rate, in exact arithmetic (no float rounding at 0.70)."""
        if provisions <= 0:
            return False
        numerator, denominator = _decimal_fraction(self.pass_rate)
        return verified * denominator >= numerator * provisions


@lru_cache(maxsize=16)
def _decimal_fraction(rate: float) -> tuple[int, int]:
    """The rate as the decimal it is written as (0.7 → 7/10, not the float's binary value),
    made once per rate: the comparison itself is then two integer products."""
    exact = Fraction(str(rate))
    return exact.numerator, exact.denominator


@lru_cache(maxsize=1)
def default_policy() -> Policy:
    """`Policy()`, made once: a frozen model of immutable values (its validation, the
    patterns' compile check included, costs more than the decision it is asked about)."""
    return Policy()


__all__ = ["DEFAULT_CONCLUSION_PATTERNS", "Delivery", "Policy", "default_policy"]
