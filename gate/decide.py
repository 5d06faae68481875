"""The gate's decision on one answer: verifiable rate, failures, standards, facts, rerun request.

`assess` is the pure core on a verifier `CheckResult` (and the judge's judgements, if any);
`gate.assess_answer` (gate.assessment) runs the verifier and the judge first.
The decision depends only on the set of distinct provisions and their failures, never on the
order of the citations or on repeats of one citation.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from datetime import date
from functools import lru_cache

from gate.facts import fact_for, no_citations_fact, rerun_request
from gate.judge import judge_failures
from gate.models import (
    INVENTED_SIGNALS,
    Decision,
    Fact,
    Failure,
    Finding,
    GateResult,
    Judgements,
    RateCounts,
    RerunRequest,
    Signal,
    Turn,
)
from gate.policy import Policy, default_policy
from gate.provisions import (
    STATUS_RANK,
    ProvisionKey,
    content_counts,
    failure_order,
    is_correctable,
    provision_key,
    provision_of,
    signals_of,
    sort_key,
)
from gate.standards import conclusions, evaluate_standards, sentences, tail_coverage
from legaldb.repository import StatuteRepository
from verifier.models import CheckResult, Status, Verdict

AMENDMENT_LABELS = ("修正", "修订")
"""Version labels of a text that amends an older one (2023年修正, 2023年修订)."""


def rate_counts(
    verdicts: Sequence[Verdict],
    policy: Policy | None = None,
    *,
    keys: Sequence[ProvisionKey] | None = None,
) -> RateCounts:
    """Distinct provisions by tier; a provision cited in several tiers counts in its worst.

    A verified provision whose stated content the article does not support (in any of its
    occurrences) is counted in `content_unsupported`: it is not verifiable. keys: each
    verdict's `provision_key`, when the caller has them already.
    """
    partly = (policy or default_policy()).partly
    tiers: dict[ProvisionKey, Status] = {}
    content_fails: set[ProvisionKey] = set()
    if keys is None:
        keys = [provision_key(verdict) for verdict in verdicts]
    for verdict, key in zip(verdicts, keys, strict=True):
        known = tiers.get(key)
        if known is None or STATUS_RANK[verdict.status] > STATUS_RANK[known]:
            tiers[key] = verdict.status
        if not content_counts(verdict, partly):
            content_fails.add(key)
    statuses = list(tiers.values())
    return _counts(
        len(verdicts),
        len(tiers),
        statuses.count("verified"),
        statuses.count("deprecated"),
        statuses.count("notYetEffective"),
        statuses.count("unverified"),
        sum(1 for key in content_fails if tiers[key] == "verified"),
    )


@lru_cache(maxsize=1024)
def _counts(
    citations: int,
    provisions: int,
    verified: int,
    deprecated: int,
    not_yet_effective: int,
    unverified: int,
    content_unsupported: int,
) -> RateCounts:
    """Counts made once per values (immutable; answers share a few small numbers)."""
    return RateCounts(
        citations=citations,
        provisions=provisions,
        verified=verified,
        deprecated=deprecated,
        not_yet_effective=not_yet_effective,
        unverified=unverified,
        content_unsupported=content_unsupported,
    )


def version_in_force_missing(verdict: Verdict, repo: StatuteRepository, as_of: date) -> bool:
    """The text in force on as_of is outside the data (the verifier's version_not_in_data:
    刑法 before 2024-03-01 in a snapshot holding only its 2023 amendment)."""
    return verdict.reason == "version_not_in_data"


FACT_PRIORITY: dict[str, int] = {"quote_mismatch": 1, "content_partly": 2, "number_conflict": 3}
"""One fact per provision: from its existence or time signal first, else its content, else its
numbers (the content fact names the numbers too)."""


def findings(
    verdicts: Sequence[Verdict],
    policy: Policy,
    *,
    repo: StatuteRepository | None = None,
    as_of: date | None = None,
    keys: Sequence[ProvisionKey] | None = None,
) -> list[Finding]:
    """One finding per (provision, signal, detail), at its first occurrence, in a fixed order.

    With the repository (and as_of), a not-yet-effective citation whose text in force is
    missing from the data is a boundary failure rather than a correctable one. keys: each
    verdict's `provision_key`, when the caller has them already.
    """
    first: dict[tuple[ProvisionKey, Signal, str | None], Verdict] = {}
    if keys is None:
        keys = [provision_key(verdict) for verdict in verdicts]
    for verdict, key in zip(verdicts, keys, strict=True):
        missing = (
            repo is not None
            and as_of is not None
            and version_in_force_missing(verdict, repo, as_of)
        )
        for signal, detail in signals_of(verdict, in_force_missing=missing):
            seen = first.get((key, signal, detail))
            if seen is None or _position(verdict) < _position(seen):
                first[(key, signal, detail)] = verdict
    ordered = sorted(first.items(), key=lambda item: sort_key(item[0][0], item[0][1], item[0][2]))
    primary: dict[ProvisionKey, tuple[Signal, str | None]] = {}
    for key, signal, detail in sorted(
        (k for k, _ in ordered), key=lambda k: (FACT_PRIORITY.get(k[1], 0), sort_key(*k))
    ):
        if is_correctable(signal, policy.partly):
            primary.setdefault(key, (signal, detail))
    found = []
    for (key, signal, detail), verdict in ordered:
        citation = verdict.citation
        failure = Failure(
            signal=signal,
            correctable=is_correctable(signal, policy.partly),
            provision=provision_of(verdict),
            surface=citation.surface,
            start=citation.start,
            end=citation.end,
            detail=detail,
        )
        fact = fact_for(failure, verdict, policy) if primary.get(key) == (signal, detail) else None
        found.append(Finding(failure, verdict, fact))
    return found


def _position(verdict: Verdict) -> tuple[int, int]:
    return (verdict.citation.start, verdict.citation.end)


def decide(counts: RateCounts, failures: Sequence[Failure], policy: Policy) -> Decision:
    """The policy's rule (docs/gate.md): pass, rerun, pass_boundary or no_citations."""
    if counts.provisions == 0:
        return "no_citations"
    if policy.passes(counts.verifiable, counts.provisions):
        if policy.strict and any(f.signal in INVENTED_SIGNALS for f in failures):
            return "rerun"
        return "pass"
    if any(f.correctable for f in failures):
        return "rerun"
    return "pass_boundary"


def wants_rerun(decision: Decision, policy: Policy) -> bool:
    """Whether a decision asks for another answer at all (the round also counts attempts)."""
    return decision == "rerun" or (decision == "no_citations" and policy.no_citations_reruns > 0)


def default_session_id(question: str | None, answer: str) -> str:
    """A stable id for a one-off evaluation: the same question and answer give the same id."""
    digest = hashlib.sha256(f"{question or ''}\x00{answer}".encode()).hexdigest()
    return f"gate-{digest[:16]}"


def assess(
    check: CheckResult,
    answer: str,
    *,
    turn: Turn = Turn(),
    policy: Policy | None = None,
    repo: StatuteRepository | None = None,
    judgements: Judgements = Judgements(),
) -> GateResult:
    """The decision on an answer already checked by the verifier (no I/O but the repository's
    in-memory index, consulted only when given); the judge's standing judgements, if any,
    count as failures beside the verifier's (gate.judge)."""
    policy = policy or default_policy()
    judged = judgements.judged
    verdicts = check.verdicts
    keys = [provision_key(verdict) for verdict in verdicts]
    counts = rate_counts(verdicts, policy, keys=keys)
    found = findings(verdicts, policy, repo=repo, as_of=date.fromisoformat(check.as_of), keys=keys)
    failures = [finding.failure for finding in found]
    candidate_facts = [f.fact for f in found if f.fact is not None]
    judge_found = judge_failures(judged, verdicts, policy)
    if judge_found:
        failures = sorted((*failures, *(f for f, _ in judge_found)), key=failure_order)
        candidate_facts += [fact for _, fact in judge_found if fact is not None]
    decision = decide(counts, failures, policy)
    rate = counts.verifiable / counts.provisions if counts.provisions else None
    spans = [(v.citation.start, v.citation.end) for v in verdicts]
    bounds = sentences(answer)
    found_conclusions = conclusions(answer, spans, policy, sentence_bounds=bounds)
    coverage = tail_coverage(answer, found_conclusions, policy)
    standards = evaluate_standards(
        answer,
        verdicts,
        found,
        counts,
        rate,
        found_conclusions,
        policy,
        sentence_bounds=bounds,
        coverage=coverage,
    )
    facts: list[Fact]
    if decision == "no_citations":
        facts = [no_citations_fact((c.text for c in found_conclusions), policy)]
    else:
        facts = _unique(candidate_facts)[: policy.max_facts]
    request: RerunRequest | None = None
    if wants_rerun(decision, policy):
        request = rerun_request(
            question=turn.question,
            answer=answer,
            facts=facts,
            decision=decision,
            session_id=turn.session_id or default_session_id(turn.question, answer),
            attempt=turn.attempt + 1,
            as_of=check.as_of,
        )
    return GateResult(
        as_of=check.as_of,
        decision=decision,
        verifiable_rate=rate,
        counts=counts,
        failures=tuple(failures),
        standards=standards,
        facts=tuple(facts),
        rerun_request=request,
        judged=judged,
        judge_error=judgements.error,
        tail_coverage=coverage,
    )


def _unique(facts: Iterable[Fact]) -> list[Fact]:
    seen: set[str] = set()
    unique = []
    for fact in facts:
        if fact.text not in seen:
            seen.add(fact.text)
            unique.append(fact)
    return unique


__all__ = [
    "AMENDMENT_LABELS",
    "assess",
    "decide",
    "default_session_id",
    "findings",
    "rate_counts",
    "version_in_force_missing",
    "wants_rerun",
]
