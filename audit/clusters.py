"""The quarter in aggregate (clusters.json), computed from the cases of cases.jsonl alone.

Pure: the export computes it from the cases it writes and `audit verify` recomputes it from the
cases it reads, so a pack whose figures disagree with its cases is rejected.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gate.models import INVENTED_ARTICLE, REPEALED_LAW

DECISIONS = ("pass", "rerun", "pass_boundary", "no_citations")
STATES = ("open", "passed", "passed_after_rerun", "data_boundary", "exhausted", "regenerator_error")
STATUSES = ("verified", "deprecated", "notYetEffective", "unverified")
QUANTITY_KINDS = ("amount", "multiple", "duration", "age", "ratio", "count")
HISTOGRAM_BINS = 10
TOP = 20

Case = Mapping[str, Any]


def _zeros(keys: Iterable[str]) -> dict[str, int]:
    return dict.fromkeys(keys, 0)


def _histogram_bin(rate: float) -> int:
    """[0, 0.1) → 0 … [0.9, 1.0] → 9; exact for the tenths (0.7 is bin 7)."""
    return min(round(rate * 1_000_000) // (1_000_000 // HISTOGRAM_BINS), HISTOGRAM_BINS - 1)


def _ranked(
    counts: Mapping[tuple[Any, ...], tuple[int, set[str]]], fields: Sequence[str]
) -> list[dict[str, Any]]:
    """Most answers first, then most cases, then by key (a total, stable order); the top TOP."""
    ordered = sorted(
        counts.items(),
        key=lambda item: (-item[1][0], -len(item[1][1]), tuple(str(part) for part in item[0])),
    )
    return [
        {**dict(zip(fields, key, strict=True)), "answers": answers, "cases": len(cases)}
        for key, (answers, cases) in ordered[:TOP]
    ]


def _tally(
    counts: dict[tuple[Any, ...], tuple[int, set[str]]], key: tuple[Any, ...], case_id: str
) -> None:
    answers, cases = counts.get(key, (0, set()))
    cases.add(case_id)
    counts[key] = (answers + 1, cases)


RELATIONS = ("supports", "contradicts", "says_nothing")


def judge_review_counts(cases: Iterable[Case]) -> dict[str, Any]:
    """The judge's review queue of the cases: items by outcome and by the reviewer's decision."""
    outcomes = _zeros(("pending", "confirmed", "overridden"))
    decisions = _zeros(RELATIONS)
    for case in cases:
        for review in case.get("judge_reviews", ()):
            outcomes[review["outcome"]] += 1
            if review["decision"] is not None:
                decisions[review["decision"]] += 1
    return {"items": sum(outcomes.values()), **outcomes, "decisions": decisions}


def compute_clusters(cases: Sequence[Case], period: str) -> dict[str, Any]:
    """clusters.json for the cases of one period (each a cases.jsonl object)."""
    decisions = _zeros(DECISIONS)
    final_states = _zeros(STATES)
    bins = [0] * HISTOGRAM_BINS
    no_rate = 0
    by_status = _zeros(STATUSES)
    by_reason: Counter[tuple[str, str]] = Counter()
    per_attempt: dict[int, dict[str, Any]] = defaultdict(
        lambda: {"answers": 0, "decisions": _zeros(DECISIONS), "rates": [], "ended": Counter()}
    )
    invented: dict[tuple[Any, ...], tuple[int, set[str]]] = {}
    repealed: dict[tuple[Any, ...], tuple[int, set[str]]] = {}
    conflicts = _zeros(QUANTITY_KINDS)
    tail = _zeros(
        (
            "long_answers",
            "passed",
            "failed",
            "head_conclusions",
            "head_supported",
            "tail_conclusions",
            "tail_supported",
        )
    )
    for case in cases:
        final_states[case["final_state"]] += 1
        for attempt in case["attempts"]:
            number, rate = attempt["attempt"], attempt["verifiable_rate"]
            decisions[attempt["decision"]] += 1
            outcome = per_attempt[number]
            outcome["answers"] += 1
            outcome["decisions"][attempt["decision"]] += 1
            if rate is None:
                no_rate += 1
            else:
                bins[_histogram_bin(rate)] += 1
                outcome["rates"].append(rate)
            for group in attempt["citations"]:
                by_status[group["status"]] += group["citations"]
                by_reason[(group["status"], group["reason"])] += group["citations"]
        per_attempt[case["attempts"][-1]["attempt"]]["ended"][case["final_state"]] += 1
        for found in case["invented_articles"]:
            if found["signal"] == INVENTED_ARTICLE:
                key = (found["law"], found["article"], found["article_count"])
                _tally(invented, key, case["case_id"])
        for found in case["repealed_provisions"]:
            if found["signal"] == REPEALED_LAW:
                _tally(repealed, (found["law"], found["repealed_on"]), case["case_id"])
        for conflict in case["number_conflicts"]:
            conflicts[conflict["kind"]] = conflicts.get(conflict["kind"], 0) + 1
        for coverage in case["tail_coverage"]:
            if not coverage["applicable"]:
                continue
            tail["long_answers"] += 1
            tail["passed" if coverage["passed"] else "failed"] += 1
            for part in ("head", "tail"):
                tail[f"{part}_conclusions"] += coverage[f"{part}_conclusions"]
                tail[f"{part}_supported"] += coverage[f"{part}_supported"]
    found = {
        "period": period,
        "decisions": decisions,
        "final_states": final_states,
        "verifiable_rate_histogram": {
            "bins": [
                {
                    "from": index / HISTOGRAM_BINS,
                    "to": (index + 1) / HISTOGRAM_BINS,
                    "answers": bins[index],
                }
                for index in range(HISTOGRAM_BINS)
            ],
            "no_rate": no_rate,
        },
        "citations": {
            "total": sum(by_status.values()),
            "by_status": by_status,
            "by_reason": [
                {"status": status, "reason": reason, "citations": count}
                for (status, reason), count in sorted(by_reason.items())
            ],
        },
        "invented_articles": _ranked(invented, ("law", "article", "article_count")),
        "repealed_laws": _ranked(repealed, ("law", "repealed_on")),
        "rerun_outcomes": [
            {
                "attempt": number,
                "answers": outcome["answers"],
                "decisions": outcome["decisions"],
                "mean_verifiable_rate": (
                    round(sum(outcome["rates"]) / len(outcome["rates"]), 4)
                    if outcome["rates"]
                    else None
                ),
                "ended": dict(sorted(outcome["ended"].items())),
            }
            for number, outcome in sorted(per_attempt.items())
        ],
        "number_conflicts": dict(sorted(conflicts.items())),
        "tail_coverage": tail,
    }
    if any("judge_reviews" in case for case in cases):  # packs made before the judge have none
        found["judge_reviews"] = judge_review_counts(cases)
    return found


__all__ = ["compute_clusters"]
