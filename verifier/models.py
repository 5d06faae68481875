"""Frozen data types of the verifier's results (no algorithm code here)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# --- Content checks: quotes (verifier.quotes) and numbers (verifier.numbers) ---

QuoteVerdict = Literal["match", "partial", "mismatch"]

QuantityKind = Literal["amount", "multiple", "duration", "age", "ratio", "count"]


@dataclass(frozen=True, slots=True)
class QuoteScore:
    """How well a quoted text agrees with an article's text.

    `score` is the similarity of the quote with the best-matching run of whole sentences of the
    article (1.0: the same text after normalisation); `support` the share of the quote found in
    the article; `coverage` the share of the article that run covers; `matched` that run as
    written in the article ("" when nothing matched).
    """

    verdict: QuoteVerdict
    score: float
    support: float
    coverage: float
    matched: str = ""


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number stated in text with its kind and unit-normalised value.

    Values are in base units: yuan for amounts, days for durations (a year is 365 days, a month
    365/12; durations are compared within 2%, so 一年 equals 十二个月 and 一个月 三十日), years for
    ages, a fraction (0.5) for ratios, the number for multiples and counts.
    `unit` keeps the unit as written (元, 日, 个月, 年, 周岁, 倍, %, 人 …); `bound` the bound word
    that follows (以上, 以下, 以内, 内, 不满 …) or "".
    """

    kind: QuantityKind
    value: float
    unit: str
    surface: str
    start: int
    end: int
    bound: str = ""


@dataclass(frozen=True, slots=True)
class NumberConflict:
    """A number in the answer of a kind the article also states, with no equal value there."""

    kind: QuantityKind
    claim_value: float
    article_values: tuple[float, ...]
    claim_surface: str
    article_surfaces: tuple[str, ...]
