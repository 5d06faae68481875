"""Frozen data types of the verifier's results (no algorithm code here)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from extractor.models import Citation
from legaldb.models import LawInfo, VersionInfo
from textnorm.slotted import filler

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


@dataclass(frozen=True, slots=True)
class Recital:
    """What one citation states of its article, beside that article as the law has it: what the
    quote check and the support verdict compare. article_text, law and version are None where
    the citation reached no article text; number and suffix name the article cited."""

    quote: str | None
    article_text: str | None
    law: LawInfo | None
    version: VersionInfo | None
    number: int
    suffix: str | None


# --- Verdicts: what `verifier.check` returns (verifier.classify, verifier.check) ---

Status = Literal["verified", "deprecated", "notYetEffective", "unverified"]
STATUSES: tuple[Status, ...] = ("verified", "deprecated", "notYetEffective", "unverified")

Reason = Literal[
    "in_force",
    "repealed",
    "superseded",
    "article_deleted",
    "not_yet_effective",
    "article_not_found",
    "paragraph_not_found",
    "item_not_found",
    "law_not_found",
    "effective_date_unknown",
    "version_not_in_data",
]

# The status as a person reads it (a repealed law's articles: 已废止, apart from 已修改).
Badge = Literal["现行有效", "已修改", "已废止", "尚未生效", "未能核验"]


@dataclass(frozen=True, slots=True)
class ArticleRef:
    """An article of a law, with its text when known (a successor, a corresponding article)."""

    law: str
    article: int
    article_suffix: str | None
    label: str  # 第五百七十七条
    version_label: str | None = None
    text: str | None = None
    kind: str | None = None  # successor kind: curated | aligned
    similarity: float | None = None
    changed: bool = False  # the rule changed in substance (curated successors)
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Facts:
    """What explains a verdict, for a person and for a rerun prompt. None: not applicable."""

    law: str | None = None
    level: str | None = None  # the law's level, or the guessed level of an unknown name
    level_covered: bool | None = None  # the data claims complete coverage of that level
    article_count: int | None = None  # in the version in force (or the version looked at)
    version_label: str | None = None
    effective_from: str | None = None  # ISO dates
    effective_to: str | None = None
    promulgated: str | None = None  # only for a version whose effective date is unknown
    repealed_on: str | None = None  # None with repealed_by/repeal_note: the date is unknown
    repealed_by: str | None = None
    repeal_note: str | None = None  # why it counts as repealed (所解释的《合同法》已于…废止)
    successor_law: str | None = None  # the law that replaced a repealed one
    successors: tuple[ArticleRef, ...] = ()
    corresponding: ArticleRef | None = None  # same article in the version in force
    recited_version: str | None = None  # the older (or newer) version whose wording is quoted
    recited_article: str | None = None  # its article label there (第四条)
    upcoming_version: str | None = None  # newer version promulgated, not yet effective
    upcoming_effective_from: str | None = None
    paragraph_count: int | None = None
    item_count: int | None = None


@dataclass(frozen=True, slots=True)
class Resolved:
    """What the citation was resolved to."""

    law: str
    version_label: str | None
    effective_from: str | None
    effective_to: str | None
    article_label: str | None
    article_text: str | None


@dataclass(frozen=True, slots=True)
class FoundIn:
    """Where a quote that does not match its article really is."""

    law: str
    article_label: str
    version_label: str | None
    score: float
    where: Literal["same_law", "other_version", "elsewhere"]


@dataclass(frozen=True, slots=True)
class QuoteCheck:
    """The quote check of one citation: verdict none when the answer quotes nothing."""

    verdict: Literal["match", "partial", "mismatch", "none"]
    score: float | None = None
    found_in: tuple[FoundIn, ...] = ()


# --- Support: does the cited article say what the answer states (verifier.support) ---

SupportVerdict = Literal["supports", "partly", "unsupported", "unknown"]
SUPPORT_VERDICTS: tuple[SupportVerdict, ...] = ("supports", "partly", "unsupported", "unknown")

DifferenceKind = Literal["number", "condition"]


@dataclass(frozen=True, slots=True)
class Difference:
    """One material element the stated content changes: a number or time limit the article
    states otherwise, or a condition of the article's passage the content leaves out.

    `stated` is what the answer says ("" for something left out), `article` the article's
    words for it.
    """

    kind: DifferenceKind
    stated: str
    article: str


@dataclass(frozen=True, slots=True)
class Support:
    """Whether the cited article supports the content the answer states for it.

    `evidence` is the article's passage closest to the stated content (as written in the
    article; "" when there is none); `coverage` the share of the content's distinctive wording
    (stock phrases and the law's common words left out) that the cited article holds, and
    `best_other` the highest such share among the law's other articles; `differences` the
    material elements changed; `found_in` only the places that clearly explain the content
    better than the cited article (docs/verifier.md gives the rules and thresholds).
    """

    verdict: SupportVerdict
    evidence: str = ""
    score: float | None = None
    coverage: float | None = None
    best_other: float | None = None
    differences: tuple[Difference, ...] = ()
    found_in: tuple[FoundIn, ...] = ()


NO_SUPPORT = Support("unknown")


@dataclass(frozen=True, slots=True)
class Verdict:
    """One citation (the extractor's) with its status, reason, facts and content checks."""

    citation: Citation
    status: Status
    reason: Reason
    facts: Facts
    resolved: Resolved | None
    quote_check: QuoteCheck
    number_conflicts: tuple[NumberConflict, ...] = ()
    support: Support = NO_SUPPORT


@dataclass(frozen=True, slots=True)
class Summary:
    """Counts per status: 已校对 6 条 · 现行有效 5 · 已废止 1 · 尚未生效 0 · 未能核验 0."""

    total: int
    verified: int
    deprecated: int
    not_yet_effective: int
    unverified: int


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Every citation of one answer with its verdict, checked as of one date."""

    as_of: str
    verdicts: tuple[Verdict, ...]
    summary: Summary


# --- Made in bulk: a batch check makes a Recital, a Verdict and a quantity or a support verdict
# for most of its citations. A frozen dataclass's __init__ sets each field through
# object.__setattr__ (3.4 µs for a Verdict); these make the same objects by plain stores into a
# filler subclass (`textnorm.slotted.filler`, 0.5 µs), every field given in the fields' order.

_RecitalFiller = filler(Recital)
_VerdictFiller = filler(Verdict)
_SupportFiller = filler(Support)
_QuantityFiller = filler(Quantity)
_SummaryFiller = filler(Summary)


def new_recital(
    quote: str | None,
    article_text: str | None,
    law: LawInfo | None,
    version: VersionInfo | None,
    number: int,
    suffix: str | None,
) -> Recital:
    """Recital(quote, article_text, law, version, number, suffix)."""
    made = _RecitalFiller()
    made.quote = quote
    made.article_text = article_text
    made.law = law
    made.version = version
    made.number = number
    made.suffix = suffix
    made.__class__ = Recital
    recital: Recital = made
    return recital


def new_verdict(
    citation: Citation,
    status: Status,
    reason: Reason,
    facts: Facts,
    resolved: Resolved | None,
    quote_check: QuoteCheck,
    number_conflicts: tuple[NumberConflict, ...],
    support: Support,
) -> Verdict:
    """Verdict(citation, status, reason, facts, resolved, quote_check, number_conflicts,
    support)."""
    made = _VerdictFiller()
    made.citation = citation
    made.status = status
    made.reason = reason
    made.facts = facts
    made.resolved = resolved
    made.quote_check = quote_check
    made.number_conflicts = number_conflicts
    made.support = support
    made.__class__ = Verdict
    verdict: Verdict = made
    return verdict


def new_support(
    verdict: SupportVerdict,
    evidence: str,
    score: float | None,
    coverage: float | None,
    best_other: float | None,
    differences: tuple[Difference, ...],
    found_in: tuple[FoundIn, ...],
) -> Support:
    """Support(verdict, evidence, score, coverage, best_other, differences, found_in)."""
    made = _SupportFiller()
    made.verdict = verdict
    made.evidence = evidence
    made.score = score
    made.coverage = coverage
    made.best_other = best_other
    made.differences = differences
    made.found_in = found_in
    made.__class__ = Support
    support: Support = made
    return support


def new_quantity(
    kind: QuantityKind, value: float, unit: str, surface: str, start: int, end: int, bound: str
) -> Quantity:
    """Quantity(kind, value, unit, surface, start, end, bound)."""
    made = _QuantityFiller()
    made.kind = kind
    made.value = value
    made.unit = unit
    made.surface = surface
    made.start = start
    made.end = end
    made.bound = bound
    made.__class__ = Quantity
    quantity: Quantity = made
    return quantity


def new_summary(
    total: int, verified: int, deprecated: int, not_yet_effective: int, unverified: int
) -> Summary:
    """Summary(total, verified, deprecated, not_yet_effective, unverified)."""
    made = _SummaryFiller()
    made.total = total
    made.verified = verified
    made.deprecated = deprecated
    made.not_yet_effective = not_yet_effective
    made.unverified = unverified
    made.__class__ = Summary
    summary: Summary = made
    return summary


_QuoteCheckFiller = filler(QuoteCheck)
_FoundInFiller = filler(FoundIn)


def new_quote_check(
    verdict: Literal["match", "partial", "mismatch", "none"],
    score: float | None,
    found_in: tuple[FoundIn, ...] = (),
) -> QuoteCheck:
    """QuoteCheck(verdict, score, found_in)."""
    made = _QuoteCheckFiller()
    made.verdict = verdict
    made.score = score
    made.found_in = found_in
    made.__class__ = QuoteCheck
    quote_check: QuoteCheck = made
    return quote_check


def new_found_in(
    law: str,
    article_label: str,
    version_label: str | None,
    score: float,
    where: Literal["same_law", "other_version", "elsewhere"],
) -> FoundIn:
    """FoundIn(law, article_label, version_label, score, where)."""
    made = _FoundInFiller()
    made.law = law
    made.article_label = article_label
    made.version_label = version_label
    made.score = score
    made.where = where
    made.__class__ = FoundIn
    found_in: FoundIn = made
    return found_in


_ResolvedFiller = filler(Resolved)


def new_resolved(
    law: str,
    version_label: str | None,
    effective_from: str | None,
    effective_to: str | None,
    article_label: str | None,
    article_text: str | None,
) -> Resolved:
    """Resolved(law, version_label, effective_from, effective_to, article_label, article_text)."""
    made = _ResolvedFiller()
    made.law = law
    made.version_label = version_label
    made.effective_from = effective_from
    made.effective_to = effective_to
    made.article_label = article_label
    made.article_text = article_text
    made.__class__ = Resolved
    resolved: Resolved = made
    return resolved
