"""Instructions of the batch check's per-answer work outside the quote location (callgrind).

Runs `lexgate check --jsonl`'s own lines (`verifier.cli.check_jsonl_lines`, one process, as of
2026-12-01) over the first N flzx answers under `valgrind --tool=callgrind`, with collection
on only inside `check_citations` (classification, quantities, support, the verdicts) minus its
`check_quote` calls (the quote location), and inside `result_line` (the JSON line); or, with
--only, inside one of `_held` (classification and the article's text), `judge_support`,
`check_numbers` or `result_line`. Collection is switched by CALLGRIND_TOGGLE_COLLECT from a
two-line C helper compiled with `cc` (valgrind's headers needed) and loaded with ctypes; the
process runs the current directory's checkout (cwd first on sys.path), so another checkout is
measured from its own directory with this file and the same virtualenv:

    python -m benchmarks.verifier_parts_callgrind [--limit 600] [--only judge_support]
    cd OLD && PYTHONPATH=. /work/wt/.venv/bin/python /work/wt/benchmarks/verifier_parts_callgrind.py

Instruction counts do not depend on the machine's load; PYTHONHASHSEED=0 fixes set orders.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks.common import ANSWERS

AS_OF = date(2026, 12, 1)
HELPER = "#include <valgrind/callgrind.h>\nvoid toggle(void) { CALLGRIND_TOGGLE_COLLECT; }\n"
PARTS = ("_held", "judge_support", "check_numbers", "result_line")


def _helper(folder: Path) -> Path:
    source, library = folder / "toggle.c", folder / "toggle.so"
    source.write_text(HELPER)
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", library, source], check=True)
    return library


def _measured(toggle: Callable[[], Any], state: list[bool]) -> Callable[..., Any]:
    """A wrapper maker: collection set to `on` inside the wrapped function, as it was after."""

    def collect(on: bool) -> None:
        if state[0] != on:
            toggle()
            state[0] = on

    def measured(function: Callable[..., Any], on: bool) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            before = state[0]
            collect(on)
            try:
                return function(*args, **kwargs)
            finally:
                collect(before)

        return wrapper

    return measured


def one_pass(library: str, limit: int, only: str | None, out: str) -> None:
    """The pass itself (run under callgrind by main)."""
    sys.path.insert(0, os.getcwd())
    toggle = ctypes.CDLL(library).toggle
    measured = _measured(toggle, [False])

    from legaldb import StatuteRepository, make_engine
    from lexgate.settings import get_settings

    settings = get_settings()
    repo = StatuteRepository.load(make_engine(settings.database_url), settings.cache_dir)
    from verifier import lexicon_of
    from verifier.cli import check_jsonl_lines

    checking, serialize = (importlib.import_module(f"verifier.{m}") for m in ("check", "serialize"))
    if only is None:
        checking.check_citations = measured(checking.check_citations, True)
        checking.check_quote = measured(checking.check_quote, False)
        serialize.result_line = measured(serialize.result_line, True)
    elif only == "result_line":
        serialize.result_line = measured(serialize.result_line, True)
    else:
        setattr(checking, only, measured(getattr(checking, only), True))
    lexicon_of(repo)
    lines = ANSWERS.read_text(encoding="utf-8").splitlines()[:limit]
    with open(out, "w", encoding="utf-8") as written:
        for line in check_jsonl_lines(lines, repo, AS_OF, jobs=1):
            written.write(line + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=600, help="the first N answers")
    parser.add_argument("--only", choices=PARTS, help="collect inside this part only")
    parser.add_argument("--pass", dest="one", nargs=2, help=argparse.SUPPRESS)  # library, out
    args = parser.parse_args()
    if args.one:
        one_pass(args.one[0], args.limit, args.only, args.one[1])
        return
    with tempfile.TemporaryDirectory(prefix="lexgate-parts-") as folder:
        library = _helper(Path(folder))
        command = [
            "valgrind", "--tool=callgrind", "--collect-atstart=no",
            f"--callgrind-out-file={folder}/parts.cg",
            sys.executable, str(Path(__file__).resolve()),
            "--limit", str(args.limit), "--pass", str(library), f"{folder}/lines.jsonl",
        ]  # fmt: skip
        if args.only:
            command += ["--only", args.only]
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": os.getcwd()}
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        if done.returncode:
            sys.exit(f"the pass under callgrind failed:\n{done.stderr[-3000:]}")
        collected = re.search(r"Collected : (\d+)", done.stderr)
        part = args.only or "check_citations minus check_quote, and result_line"
        count = int(collected.group(1)) if collected else -1
        print(f"{args.limit} answers, as of {AS_OF}, {part}: {count:,} instructions")


if __name__ == "__main__":
    main()
