"""CPU of the batch check's parts per answer: support verdicts, quantities, JSON output.

Runs what `lexgate check --jsonl` runs on every answer of ../shared/eval/flzx_dev_answers.jsonl
(2,750 answers, as of 2026-12-01) in one fresh process with cold memos, on the configured
database and cache directory (`lexgate db init`), and reports the CPU time (process time) of:
- support: `judge_support` as the check calls it (its memo, passages, coverage, numbers);
- quantities: `number_conflicts` wherever it is called (the claim's numbers and support's);
- JSON: each output line built (`verdict_to_json`, `summary_to_json`) and dumped;
- the whole pass (extraction, lookups, quotes and the rest included).

    python -m benchmarks.verifier_parts_bench [--limit N]

Each part is timed around its own calls (a wrapper put in place of the module attribute the
caller looks up), so the figures are the parts' share of a real pass, not of a replay.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from datetime import date
from typing import Any, TypeVar

from benchmarks.common import ANSWERS

AS_OF = date(2026, 12, 1)
F = TypeVar("F", bound=Callable[..., Any])


def _timed(spent: dict[str, float], name: str, function: F) -> F:
    def timed(*args: Any, **kwargs: Any) -> Any:
        begun = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[name] += time.process_time() - begun

    return timed  # type: ignore[return-value]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=None, help="only the first N answers")
    args = parser.parse_args()

    from legaldb import StatuteRepository, make_engine
    from lexgate.settings import get_settings

    settings = get_settings()
    repo = StatuteRepository.load(make_engine(settings.database_url), settings.cache_dir)

    import importlib

    from verifier import lexicon_of
    from verifier.check import check
    from verifier.serialize import summary_to_json, verdict_to_json

    spent = dict.fromkeys(("support", "quantities", "json", "total"), 0.0)
    # (verifier's package exports a verb `check`: the modules are taken from importlib)
    checking, content, support = (
        importlib.import_module(f"verifier.{name}") for name in ("check", "content", "support")
    )
    checking.judge_support = _timed(spent, "support", support.judge_support)
    # number_conflicts is called from the claim's check and from support's differences; the
    # time inside support counts in both lines.
    for module in (content, support):
        module.number_conflicts = _timed(spent, "quantities", module.number_conflicts)
    lexicon_of(repo)  # built once at start-up, like the CLI

    lines = ANSWERS.read_text(encoding="utf-8").splitlines()[: args.limit]
    answers = [json.loads(line) for line in lines]
    begun = time.process_time()
    size = 0
    for item in answers:
        result = check(item["answer"], repo, AS_OF)
        started = time.process_time()
        out = json.dumps(
            {
                "id": item.get("id"),
                "as_of": result.as_of,
                "citations": [verdict_to_json(v, with_text=False) for v in result.verdicts],
                "summary": summary_to_json(result.summary),
            },
            ensure_ascii=False,
        )
        spent["json"] += time.process_time() - started
        size += len(out)
    spent["total"] = time.process_time() - begun
    count = len(answers)
    print(f"{count} answers, as of {AS_OF}, {size:,} characters of output")
    print("| part | CPU s | ms per answer |")
    print("|---|---:|---:|")
    for name, seconds in spent.items():
        print(f"| {name} | {seconds:.3f} | {1000 * seconds / count:.3f} |")


if __name__ == "__main__":
    main()
