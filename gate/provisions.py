"""From verdicts to distinct provisions and failure signals (pure; no wording here)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from gate.models import CORRECTABLE_SIGNALS, Failure, Provision, Signal
from textnorm import article_label, int_to_cn, normalize_name, strip_prc_prefix
from verifier.models import NumberConflict, Status, Verdict

ProvisionKey = tuple[str, int, str, int, int]

STATUS_RANK: dict[Status, int] = {
    "verified": 0,
    "notYetEffective": 1,
    "deprecated": 2,
    "unverified": 3,
}
"""When occurrences of one provision differ, the worst (highest) tier counts."""

_REASON_SIGNALS: dict[str, Signal] = {
    "article_not_found": "article_not_found",
    "paragraph_not_found": "paragraph_not_found",
    "item_not_found": "item_not_found",
    "repealed": "repealed",
    "superseded": "superseded",
    "article_deleted": "article_deleted",
    "not_yet_effective": "not_yet_effective",
    "effective_date_unknown": "effective_date_unknown",
    "version_not_in_data": "version_in_force_missing",
}
_STATUS_FALLBACK: dict[str, Signal] = {
    "deprecated": "superseded",
    "notYetEffective": "not_yet_effective",
    "unverified": "effective_date_unknown",
}


def reason_of(signal: Signal) -> str:
    """The verdict reason that always yields this signal (the audit's citation rows keep
    reasons); ValueError for a signal no reason alone decides."""
    for reason, mapped in _REASON_SIGNALS.items():
        if mapped == signal:
            return reason
    raise ValueError(f"no verdict reason alone yields {signal}")


def law_name(verdict: Verdict) -> str | None:
    """The best name of the cited law: canonical when resolved, else as the answer wrote it."""
    citation = verdict.citation
    if verdict.resolved is not None and verdict.resolved.law:
        return str(verdict.resolved.law)
    if verdict.facts.law:
        return verdict.facts.law
    written = citation.law or citation.law_as_written
    return str(written) if written else None


@lru_cache(maxsize=4096)
def law_key(name: str) -> str:
    """A law name as compared between citations: normalised, without 中华人民共和国."""
    return strip_prc_prefix(normalize_name(name))


def provision_key(verdict: Verdict) -> ProvisionKey:
    """(law, article, suffix, 款, 项) with the law normalised: one key per distinct provision."""
    citation = verdict.citation
    law = law_key(law_name(verdict) or "")
    return (
        law,
        int(citation.article),
        citation.article_suffix or "",
        citation.paragraph or 0,
        citation.item or 0,
    )


def provision_of(verdict: Verdict) -> Provision:
    """The provision a verdict's citation names, with its label."""
    citation = verdict.citation
    return _provision(
        law_name(verdict),
        citation.article,
        citation.article_suffix,
        citation.paragraph,
        citation.item,
    )


@lru_cache(maxsize=4096)
def _provision(
    law: str | None, article: int, suffix: str | None, paragraph: int | None, item: int | None
) -> Provision:
    """One provision, made once (a provision is immutable; its label spells numbers out)."""
    label = f"《{law}》" if law else ""
    label += article_label(article, suffix)
    if paragraph:
        label += f"第{int_to_cn(paragraph)}款"
    if item:
        label += f"第{int_to_cn(item)}项"
    return Provision(
        law=law,
        article=article,
        article_suffix=suffix,
        paragraph=paragraph,
        item=item,
        label=label,
    )


def conflict_detail(conflict: NumberConflict) -> str:
    """What tells two number conflicts of one provision apart: kind and the answer's value."""
    return f"{conflict.kind}:{conflict.claim_value:g}"


def signals_of(
    verdict: Verdict, *, in_force_missing: bool = False
) -> list[tuple[Signal, str | None]]:
    """Every failure signal of one citation occurrence, with its detail.

    in_force_missing: the citation is not yet effective only because the data lacks the text
    in force on the as-of date (a boundary, see `decide.version_in_force_missing`).
    """
    found: list[tuple[Signal, str | None]] = []
    if verdict.status != "verified":
        if verdict.reason == "not_yet_effective" and in_force_missing:
            found.append(("version_in_force_missing", None))
        elif verdict.reason == "law_not_found":
            covered = verdict.facts.level_covered is True
            found.append(("law_not_found" if covered else "law_outside_coverage", None))
        elif verdict.reason in _REASON_SIGNALS:
            found.append((_REASON_SIGNALS[verdict.reason], None))
        else:
            found.append((_STATUS_FALLBACK[verdict.status], None))
    if verdict.support.verdict == "unsupported":
        found.append(("quote_mismatch", None))
    elif verdict.support.verdict == "partly":
        found.append(("content_partly", None))
    for conflict in verdict.number_conflicts:
        found.append(("number_conflict", conflict_detail(conflict)))
    return found


def is_correctable(signal: str, partly: str = "warn") -> bool:
    """True for failures the data can correct (docs/gate.md lists them); content_partly only
    when the policy reruns on it (`Policy.partly`), else it is a warning."""
    if signal == "content_partly":
        return partly == "rerun"
    return signal in CORRECTABLE_SIGNALS


def content_counts(verdict: Verdict, partly: str = "warn") -> bool:
    """False when the citation's stated content keeps it from being verifiable: unsupported,
    or partly when the policy reruns on partly content."""
    support = verdict.support.verdict
    return not (support == "unsupported" or (support == "partly" and partly == "rerun"))


def sort_key(key: ProvisionKey, signal: str, detail: str | None) -> tuple[Any, ...]:
    """A total order of failures that does not depend on where they stand in the answer."""
    return (*key, signal, detail or "")


def failure_order(failure: Failure) -> tuple[Any, ...]:
    """`sort_key` of a failure already made (from its provision rather than its verdict)."""
    provision = failure.provision
    key: ProvisionKey = (
        law_key(provision.law or ""),
        provision.article,
        provision.article_suffix or "",
        provision.paragraph or 0,
        provision.item or 0,
    )
    return sort_key(key, failure.signal, failure.detail)


__all__ = [
    "STATUS_RANK",
    "ProvisionKey",
    "conflict_detail",
    "content_counts",
    "failure_order",
    "is_correctable",
    "law_key",
    "law_name",
    "provision_key",
    "provision_of",
    "reason_of",
    "signals_of",
    "sort_key",
]
