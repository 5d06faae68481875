"""The named quality standards, each passed or failed with its evidence (pure, on text).

docs/gate.md states each standard; `evaluate_standards` computes all seven for one answer.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from functools import lru_cache
from operator import itemgetter

from gate.models import (
    INVENTED_SIGNALS,
    Conclusion,
    Evidence,
    Finding,
    RateCounts,
    Standard,
    StandardName,
    TailCoverage,
)
from gate.policy import Policy
from gate.provisions import provision_key
from verifier.models import Verdict

_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]*")
"""A sentence of one line: up to its end marks, or to the line's end."""
_ACKNOWLEDGED_OLD = re.compile(
    r"废止|失效|已被[^。；]{0,12}(?:取代|替代|代替)|修[订正]前|原《|旧《"
)
"""Words by which an answer itself says that a cited law or article is no longer in force."""

DEPRECATED_SIGNALS = frozenset({"repealed", "superseded", "article_deleted"})

_NO_CITATIONS = Standard(name="verifiable_rate", passed=False, summary="no citations")
_NOT_APPLICABLE = TailCoverage(applicable=False)


@lru_cache(maxsize=16)
def _conclusion_pattern(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{pattern})" for pattern in patterns))


def sentences(text: str) -> list[tuple[int, int, int]]:
    """(start, end, paragraph start) of each sentence; a paragraph is a line of the answer."""
    found = []
    paragraph_start = 0
    line_end = text.find("\n")
    for match in _SENTENCE.finditer(text):
        start, end = match.span()
        if 0 <= line_end < start:
            paragraph_start = text.rfind("\n", 0, start) + 1
            line_end = text.find("\n", start)
        if text[start].isspace() or text[end - 1].isspace():
            sentence = match.group()
            stripped = sentence.strip()  # str.strip drops exactly what str.isspace holds
            if not stripped:
                continue
            start += len(sentence) - len(sentence.lstrip())
            end = start + len(stripped)
        found.append((start, end, paragraph_start))
    return found


def conclusions(
    text: str,
    citation_spans: Iterable[tuple[int, int]],
    policy: Policy,
    *,
    sentence_bounds: Sequence[tuple[int, int, int]] | None = None,
) -> list[Conclusion]:
    """Sentences stating a legal rule or outcome; supported when a citation overlaps the
    sentence or stands in its paragraph (its line). sentence_bounds: `sentences(text)`, when
    the caller has them already."""
    spans = sorted(citation_spans)
    search = _conclusion_pattern(policy.conclusion_patterns).search
    found = []
    supported_in: dict[int, bool] = {}  # paragraph start → a citation stands in it
    bounds = sentences(text) if sentence_bounds is None else sentence_bounds
    for start, end, paragraph_start in bounds:
        sentence = text[start:end]
        if not search(sentence):
            continue
        supported = supported_in.get(paragraph_start)
        if supported is None:
            newline = text.find("\n", paragraph_start)
            paragraph_end = len(text) if newline < 0 else newline
            supported = supported_in[paragraph_start] = any(
                cited_start < paragraph_end and cited_end > paragraph_start
                for cited_start, cited_end in spans
            )
        found.append(Conclusion(text=sentence, start=start, end=end, supported=supported))
    return found


def evaluate_standards(
    text: str,
    verdicts: Sequence[Verdict],
    findings: Sequence[Finding],
    counts: RateCounts,
    rate: float | None,
    found_conclusions: Sequence[Conclusion],
    policy: Policy,
    *,
    sentence_bounds: Sequence[tuple[int, int, int]] | None = None,
    coverage: TailCoverage | None = None,
) -> tuple[Standard, ...]:
    """All seven standards of one answer, in the order docs/gate.md lists them.

    sentence_bounds (`sentences(text)`) and coverage (`tail_coverage(...)`): when the caller
    has them already.
    """
    if coverage is None:
        coverage = tail_coverage(text, found_conclusions, policy)
    return (
        _verifiable_rate(counts, rate, policy),
        _from_findings(
            "no_invented_articles",
            [f for f in findings if f.failure.signal in INVENTED_SIGNALS],
            "invented provision(s)",
        ),
        _no_repealed_as_current(text, verdicts, findings, sentence_bounds),
        _from_findings(
            "no_quote_mismatch",
            [f for f in findings if f.failure.signal == "quote_mismatch"],
            "citation(s) whose stated content the article does not support",
        ),
        _from_findings(
            "no_number_conflict",
            [f for f in findings if f.failure.signal == "number_conflict"],
            "number(s) the article contradicts",
        ),
        _conclusions_have_basis(found_conclusions),
        _tail_coverage(text, found_conclusions, policy, coverage),
    )


def _evidence(finding: Finding) -> Evidence:
    failure = finding.failure
    note = finding.fact.text if finding.fact is not None else failure.signal
    return Evidence(text=failure.surface, start=failure.start, end=failure.end, note=note)


def _verifiable_rate(counts: RateCounts, rate: float | None, policy: Policy) -> Standard:
    if rate is None:
        return _NO_CITATIONS
    return _rate_standard(
        counts.verifiable,
        counts.provisions,
        counts.deprecated,
        counts.not_yet_effective,
        counts.unverified,
        counts.content_unsupported,
        rate,
        policy.pass_rate,
        policy.passes(counts.verifiable, counts.provisions),
    )


@lru_cache(maxsize=1024)
def _rate_standard(
    verifiable: int,
    provisions: int,
    deprecated: int,
    not_yet_effective: int,
    unverified: int,
    content_unsupported: int,
    rate: float,
    pass_rate: float,
    passed: bool,
) -> Standard:
    """The verifiable_rate standard, made once per figures (answers share a few)."""
    summary = (
        f"{verifiable} of {provisions} distinct provisions verifiable "
        f"({rate:.2f} {'>=' if passed else '<'} {pass_rate:.2f}); "
        f"deprecated {deprecated}, not yet effective {not_yet_effective}, "
        f"unverified {unverified}, verified with unsupported content "
        f"{content_unsupported}"
    )
    return Standard(name="verifiable_rate", passed=passed, summary=summary)


def _from_findings(name: StandardName, findings: Sequence[Finding], what: str) -> Standard:
    if not findings:
        return _passed(name, "none")
    evidence = tuple(_evidence(finding) for finding in findings)
    return Standard(name=name, passed=False, summary=f"{len(evidence)} {what}", evidence=evidence)


@lru_cache(maxsize=1024)
def _passed(name: StandardName, summary: str) -> Standard:
    """A standard passed without evidence, made once (standards are immutable): most answers
    pass four or five of the seven so."""
    return Standard(name=name, passed=True, summary=summary)


def sentence_at(text: str, bounds: Sequence[tuple[int, int, int]], start: int, end: int) -> str:
    """The sentence of `bounds` (`sentences(text)`) holding `start`, else text[start:end]: found
    by bisection, the last sentence starting at or before `start` (sentences do not overlap)."""
    at = bisect_right(bounds, start, key=itemgetter(0)) - 1
    if at >= 0 and start < bounds[at][1]:
        return text[bounds[at][0] : bounds[at][1]]
    return text[start:end]


def _no_repealed_as_current(
    text: str,
    verdicts: Sequence[Verdict],
    findings: Sequence[Finding],
    bounds: Sequence[tuple[int, int, int]] | None,
) -> Standard:
    """Failed by a deprecated citation the answer presents as current (no 原/旧/year qualifier
    and no word such as 已废止 in its sentence)."""
    as_current = set()
    for verdict in verdicts:
        citation = verdict.citation
        if verdict.status != "deprecated" or citation.version_hint:
            continue
        bounds = bounds if bounds is not None else sentences(text)
        sentence = sentence_at(text, bounds, citation.start, citation.end)
        if not _ACKNOWLEDGED_OLD.search(sentence):
            as_current.add(provision_key(verdict))
    chosen = [
        f
        for f in findings
        if f.failure.signal in DEPRECATED_SIGNALS and provision_key(f.verdict) in as_current
    ]
    return _from_findings(
        "no_repealed_as_current", chosen, "provision(s) no longer in force cited as current"
    )


def _conclusions_have_basis(found: Sequence[Conclusion]) -> Standard:
    if not found:
        return _passed("conclusions_have_basis", "no sentence states a legal rule or outcome")
    unsupported = [c for c in found if not c.supported]
    evidence = tuple(Evidence(text=c.text, start=c.start, end=c.end) for c in unsupported)
    summary = (
        f"{len(found) - len(unsupported)} of {len(found)} conclusions have a citation in their "
        "sentence or paragraph"
    )
    if not unsupported:
        return _passed("conclusions_have_basis", summary)
    return Standard(
        name="conclusions_have_basis", passed=not unsupported, summary=summary, evidence=evidence
    )


def tail_coverage(text: str, found: Sequence[Conclusion], policy: Policy) -> TailCoverage:
    """The supported conclusions of a long answer's head and tail (the last
    policy.tail_fraction of its characters)."""
    if len(text) < policy.long_answer_chars:
        return _NOT_APPLICABLE
    boundary = len(text) * (1 - policy.tail_fraction)
    head = [c for c in found if c.start < boundary]
    tail = [c for c in found if c.start >= boundary]
    return _coverage(
        len(head), sum(c.supported for c in head), len(tail), sum(c.supported for c in tail)
    )


@lru_cache(maxsize=1024)
def _coverage(
    head_conclusions: int, head_supported: int, tail_conclusions: int, tail_supported: int
) -> TailCoverage:
    """An applicable tail coverage, made once per figures (immutable; a few small numbers)."""
    return TailCoverage(
        applicable=True,
        head_conclusions=head_conclusions,
        head_supported=head_supported,
        tail_conclusions=tail_conclusions,
        tail_supported=tail_supported,
    )


def _tail_coverage(
    text: str, found: Sequence[Conclusion], policy: Policy, coverage: TailCoverage
) -> Standard:
    """Long answers: the tail's conclusions are supported at least as often as the head's."""
    if not coverage.applicable:
        return _passed(
            "tail_coverage", f"not applicable: shorter than {policy.long_answer_chars} characters"
        )
    evidence = tuple(
        Evidence(text=c.text, start=c.start, end=c.end, note=f"at {c.start / len(text):.0%}")
        for c in found
        if not c.supported
    )
    summary = (
        f"supported conclusions: head {coverage.head_supported}/{coverage.head_conclusions}, "
        f"last {policy.tail_fraction:.0%} {coverage.tail_supported}/{coverage.tail_conclusions}"
    )
    if coverage.passed and not evidence:
        return _passed("tail_coverage", summary)
    return Standard(
        name="tail_coverage", passed=coverage.passed, summary=summary, evidence=evidence
    )


__all__ = ["DEPRECATED_SIGNALS", "conclusions", "evaluate_standards", "sentences", "tail_coverage"]
