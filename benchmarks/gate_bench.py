"""The gate over real answers: decision distribution, standards, speed, and real rerun requests.

Runs `gate.evaluate` on every answer of ../shared/eval/flzx_dev_answers.jsonl (2,750 answers of
ten models and the benchmark's references) as of two dates and prints, as Markdown, the
decisions, the failed standards, the speed (verifier vs gate) and ten real rerun requests.

    python -m benchmarks.gate_bench [--database-url URL] [--examples N] [--json-out PATH]

Without --database-url the bundled corpus is imported into a fresh SQLite file first.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import verifier
from benchmarks.common import ANSWERS, repository
from gate import Policy, assess
from gate.models import GateResult, Turn
from legaldb import StatuteRepository

DATES = (date(2023, 8, 1), date(2026, 11, 29))
DECISIONS = ("pass", "rerun", "pass_boundary", "no_citations")
ANSWER_SHOWN = 300


def evaluate_all(
    items: list[dict[str, Any]], repo: StatuteRepository, as_of: date, policy: Policy
) -> tuple[list[GateResult], float, float]:
    """Every item's result, with the seconds spent in the verifier and in the gate."""
    results, verify_s, gate_s = [], 0.0, 0.0
    for item in items:
        started = time.perf_counter()
        checked = verifier.check(item["answer"], repo, as_of)
        middle = time.perf_counter()
        results.append(
            assess(
                checked,
                item["answer"],
                turn=Turn(question=item.get("question"), session_id=item["id"]),
                policy=policy,
                repo=repo,
            )
        )
        verify_s += middle - started
        gate_s += time.perf_counter() - middle
    return results, verify_s, gate_s


def distribution_table(by_date: dict[date, list[GateResult]]) -> list[str]:
    """Decisions per date as a Markdown table (count and share)."""
    lines = ["| decision | " + " | ".join(f"as of {d}" for d in by_date) + " |"]
    lines.append("|---|" + "---:|" * len(by_date))
    for decision in DECISIONS:
        cells = []
        for results in by_date.values():
            count = sum(r.decision == decision for r in results)
            cells.append(f"{count} ({count / len(results):.1%})")
        lines.append(f"| {decision} | " + " | ".join(cells) + " |")
    return lines


def standards_table(by_date: dict[date, list[GateResult]]) -> list[str]:
    """Share of answers failing each standard, per date."""
    names = [s.name for s in next(iter(by_date.values()))[0].standards]
    lines = ["| standard failed | " + " | ".join(f"as of {d}" for d in by_date) + " |"]
    lines.append("|---|" + "---:|" * len(by_date))
    for name in names:
        cells = []
        for results in by_date.values():
            failed = sum(not s.passed for r in results for s in r.standards if s.name == name)
            cells.append(f"{failed} ({failed / len(results):.1%})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def signals_table(by_date: dict[date, list[GateResult]]) -> list[str]:
    """Answers with at least one failure of each signal, per date."""
    counters = {d: Counter(s for r in rs for s in {f.signal for f in r.failures})
                for d, rs in by_date.items()}  # fmt: skip
    signals = sorted(set().union(*counters.values()))
    lines = ["| answers with a failure | " + " | ".join(f"as of {d}" for d in by_date) + " |"]
    lines.append("|---|" + "---:|" * len(by_date))
    for signal in signals:
        lines.append(
            f"| {signal} | " + " | ".join(str(counters[d][signal]) for d in by_date) + " |"
        )
    return lines


def pick_examples(
    items: list[dict[str, Any]], results: list[GateResult], count: int
) -> list[tuple[dict[str, Any], GateResult]]:
    """Rerun requests in file order, the first of each leading signal first, then the next ones."""
    candidates = [(i, r) for i, r in zip(items, results, strict=True) if r.rerun_request]
    chosen: list[tuple[dict[str, Any], GateResult]] = []
    seen: set[str] = set()
    for item, result in candidates:
        lead = next((f.signal for f in result.failures if f.correctable), result.decision)
        if lead not in seen:
            seen.add(lead)
            chosen.append((item, result))
    for pair in candidates:
        if len(chosen) >= count:
            break
        if pair not in chosen:
            chosen.append(pair)
    return chosen[:count]


def example_markdown(number: int, item: dict[str, Any], result: GateResult) -> list[str]:
    """One rerun request for docs/gate.md: ids, question, previous answer, the instruction."""
    request = result.rerun_request
    if request is None:
        raise ValueError(f"{item['id']} has no rerun request")
    answer = item["answer"].strip()
    shown = answer if len(answer) <= ANSWER_SHOWN else answer[:ANSWER_SHOWN] + "……"
    rate = "—" if result.verifiable_rate is None else f"{result.verifiable_rate:.2f}"
    signals = ", ".join(sorted({f.signal for f in result.failures})) or "none"
    return [
        f"#### {number}. `{item['id']}` ({result.decision}, rate {rate}; {signals})",
        "",
        "- user (question): " + item["question"].strip().replace("\n", " ⏎ "),
        f"- assistant (previous answer, {len(answer)} characters): " + shown.replace("\n", " ⏎ "),
        "- user (instruction):",
        "",
        "```text",
        request.messages[-1].content,
        "```",
        "",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--examples", type=int, default=10)
    parser.add_argument("--json-out", type=Path, default=None, help="Write the requests as JSON.")
    args = parser.parse_args()

    started = time.perf_counter()
    repo = repository(args.database_url)
    print(f"repository ready in {time.perf_counter() - started:.1f} s")
    items = [json.loads(line) for line in ANSWERS.read_text(encoding="utf-8").splitlines() if line]
    policy = Policy()
    verifier.check("《中华人民共和国民法典》第一条", repo, DATES[0])  # warm the lexicon
    by_date: dict[date, list[GateResult]] = {}
    for as_of in DATES:
        results, verify_s, gate_s = evaluate_all(items, repo, as_of, policy)
        by_date[as_of] = results
        total = verify_s + gate_s
        print(
            f"as of {as_of}: {len(items)} answers in {total:.2f} s "
            f"({len(items) / total:,.0f} answers/s); verifier {verify_s:.2f} s "
            f"({verify_s / total:.0%}), gate {gate_s:.2f} s ({gate_s / total:.0%})"
        )
    print()
    print("\n".join(distribution_table(by_date)))
    print()
    print("\n".join(signals_table(by_date)))
    print()
    print("\n".join(standards_table(by_date)))
    print()
    latest = DATES[-1]
    examples = pick_examples(items, by_date[latest], args.examples)
    print(f"### {len(examples)} rerun requests as of {latest}\n")
    for number, (item, result) in enumerate(examples, start=1):
        print("\n".join(example_markdown(number, item, result)))
    if args.json_out is not None:
        args.json_out.write_text(
            json.dumps(
                [r.rerun_request.model_dump(mode="json") for _, r in examples if r.rerun_request],
                ensure_ascii=False,
                indent=2,
            ),
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
