"""CPU of the batch check's parts per answer: classification, support, quantities, JSON output.

Runs `lexgate check --jsonl`'s own lines (`verifier.cli.check_jsonl_lines`, one process) over
../shared/eval/flzx_dev_answers.jsonl (2,750 answers, as of 2026-12-01) in one fresh process
with cold memos, on the configured database and cache directory (`lexgate db init`), and
reports the CPU time (process time) of:
- classification: `classify` as the check calls it (existence and time: status, reason, facts);
- support: `judge_support` as the check calls it (its memo, passages, coverage, numbers);
- quantities: `number_conflicts` wherever it is called (the claim's numbers and support's);
- JSON: each input line read and its output line made (the batch minus `check`);
- the whole pass (extraction, lookups, quotes and the rest included).

    python -m benchmarks.verifier_parts_bench [--limit N] [--repeat N]

Each part is timed around its own calls (a wrapper put in place of the module attribute the
caller looks up), so the figures are the parts' share of a real pass, not of a replay. With
--repeat, the pass runs N times, each in a fresh process, and each figure's best is given
(the least disturbed by other work on the machine).
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import date
from typing import Any, TypeVar

from benchmarks.common import ANSWERS

AS_OF = date(2026, 12, 1)
PARTS = ("classification", "support", "quantities", "json", "total")
F = TypeVar("F", bound=Callable[..., Any])


def _timed(spent: dict[str, float], name: str, function: F) -> F:
    def timed(*args: Any, **kwargs: Any) -> Any:
        begun = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[name] += time.process_time() - begun

    return timed  # type: ignore[return-value]


def one_pass(limit: int | None) -> tuple[int, int, dict[str, float]]:
    """(answers, characters of output, CPU seconds per part) of one pass in this process."""
    from legaldb import StatuteRepository, make_engine
    from lexgate.settings import get_settings

    settings = get_settings()
    repo = StatuteRepository.load(make_engine(settings.database_url), settings.cache_dir)

    from verifier import lexicon_of
    from verifier.cli import check_jsonl_lines

    spent = dict.fromkeys(PARTS, 0.0)
    # (verifier's package exports a verb `check`: the modules are taken from importlib)
    checking, content, support = (
        importlib.import_module(f"verifier.{name}") for name in ("check", "content", "support")
    )
    checking.classify = _timed(spent, "classification", checking.classify)
    checking.judge_support = _timed(spent, "support", checking.judge_support)
    # number_conflicts is called from the claim's check and from support's differences; the
    # time inside support counts in both lines.
    for module in (content, support):
        module.number_conflicts = _timed(spent, "quantities", module.number_conflicts)
    checked = dict.fromkeys(("check",), 0.0)
    checking.check = _timed(checked, "check", checking.check)  # looked up by each batch
    lexicon_of(repo)  # built once at start-up, like the CLI

    lines = ANSWERS.read_text(encoding="utf-8").splitlines()[:limit]
    begun = time.process_time()
    size = sum(len(line) for line in check_jsonl_lines(lines, repo, AS_OF, jobs=1))
    spent["total"] = time.process_time() - begun
    spent["json"] = spent["total"] - checked["check"]
    return len(lines), size, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=None, help="only the first N answers")
    parser.add_argument("--repeat", type=int, default=1, help="passes, each a fresh process")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one pass's
    args = parser.parse_args()
    if args.json:
        print(json.dumps(one_pass(args.limit)))
        return
    passes = []
    for _ in range(args.repeat):
        command = [sys.executable, "-m", "benchmarks.verifier_parts_bench", "--json"]
        if args.limit is not None:
            command += ["--limit", str(args.limit)]
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        passes.append(json.loads(out))
    count, size = passes[0][0], passes[0][1]
    print(f"{count} answers, as of {AS_OF}, {size:,} characters of output, {len(passes)} passes")
    print("| part | CPU s (best; all) | ms per answer (best) |")
    print("|---|---:|---:|")
    for name in PARTS:
        seconds = [spent[name] for _, _, spent in passes]
        every = ", ".join(f"{s:.3f}" for s in seconds)
        print(f"| {name} | {min(seconds):.3f}; {every} | {1000 * min(seconds) / count:.3f} |")


if __name__ == "__main__":
    main()
