"""Instructions of the gate's own work per answer (`gate.assess`) over the flzx answers (callgrind).

Checks the first N flzx answers as of 2026-12-01 with the verifier in a plain process first
(pickled to a temporary file: checking under valgrind would take minutes), then counts, under
`valgrind --tool=callgrind`, only the loop that runs `gate.assess` on each of them once
(findings, standards, decision, facts, the rerun request), as the batch gate does after each
check. Collection is switched by CALLGRIND_TOGGLE_COLLECT from a two-line C helper compiled with
`cc` (valgrind's headers needed) and loaded with ctypes. The process runs the current directory's
checkout (PYTHONPATH=. puts it first on sys.path), so another checkout is measured from its own directory with
this file and the same virtualenv:

    python -m benchmarks.gate_assess_callgrind [--limit 2750]
    cd OLD && PYTHONPATH=. /work/wt/.venv/bin/python /work/wt/benchmarks/gate_assess_callgrind.py

It prints the instructions and a digest of the results' JSON (the same digest: the same output).
Instruction counts do not depend on the machine's load; PYTHONHASHSEED=0 fixes set orders.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

import verifier
from benchmarks.common import ANSWERS
from gate import Policy, assess
from gate.models import Turn
from legaldb import StatuteRepository, make_engine
from lexgate.settings import get_settings

AS_OF = date(2026, 12, 1)
HELPER = "#include <valgrind/callgrind.h>\nvoid toggle(void) { CALLGRIND_TOGGLE_COLLECT; }\n"


def _helper(folder: Path) -> Path:
    source, library = folder / "toggle.c", folder / "toggle.so"
    source.write_text(HELPER)
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", library, source], check=True)
    return library


def _repository() -> StatuteRepository:
    settings = get_settings()
    return StatuteRepository.load(make_engine(settings.database_url), settings.cache_dir)


def _items(limit: int) -> list[dict[str, Any]]:
    lines = ANSWERS.read_text(encoding="utf-8").splitlines()[:limit]
    return [json.loads(line) for line in lines]


def check_all(limit: int, checks: str) -> None:
    """The verifier's checks of the first limit answers, pickled to checks (not counted)."""
    repo = _repository()
    checked = [verifier.check(item["answer"], repo, AS_OF) for item in _items(limit)]
    Path(checks).write_bytes(pickle.dumps(checked, protocol=pickle.HIGHEST_PROTOCOL))


def one_pass(library: str, limit: int, checks: str, out: str) -> None:
    """The pass itself (run under callgrind by main): the results' JSON lines go to out."""
    toggle = ctypes.CDLL(library).toggle
    repo = _repository()
    items = _items(limit)
    checked = pickle.loads(Path(checks).read_bytes())
    turns = [Turn(question=item.get("question"), session_id=item["id"]) for item in items]
    policy = Policy()
    toggle()
    results = [
        assess(check, item["answer"], turn=turn, policy=policy, repo=repo)
        for item, check, turn in zip(items, checked, turns, strict=True)
    ]
    toggle()
    with open(out, "w", encoding="utf-8") as written:
        for result in results:
            written.write(result.model_dump_json() + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=2750, help="the first N answers")
    parser.add_argument("--check", help=argparse.SUPPRESS)  # the checks' pickle
    parser.add_argument("--pass", dest="one", nargs=3, help=argparse.SUPPRESS)  # lib, checks, out
    args = parser.parse_args()
    if args.check:
        check_all(args.limit, args.check)
        return
    if args.one:
        one_pass(args.one[0], args.limit, args.one[1], args.one[2])
        return
    with tempfile.TemporaryDirectory(prefix="lexgate-assess-") as folder:
        library = _helper(Path(folder))
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": os.getcwd()}
        itself = [sys.executable, str(Path(__file__).resolve()), "--limit", str(args.limit)]
        subprocess.run([*itself, "--check", f"{folder}/checks.pickle"], check=True, env=env)
        command = [
            "valgrind", "--tool=callgrind", "--collect-atstart=no",
            f"--callgrind-out-file={folder}/assess.cg",
            *itself, "--pass", str(library), f"{folder}/checks.pickle", f"{folder}/results.jsonl",
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        if done.returncode:
            sys.exit(f"the pass under callgrind failed:\n{done.stderr[-3000:]}")
        collected = re.search(r"Collected : (\d+)", done.stderr)
        count = int(collected.group(1)) if collected else -1
        digest = hashlib.sha256(Path(folder, "results.jsonl").read_bytes()).hexdigest()[:16]
        print(
            f"{args.limit} answers, as of {AS_OF}, gate.assess: {count:,} instructions "
            f"({count / args.limit:,.0f} per answer); results' JSON sha256 {digest}"
        )


if __name__ == "__main__":
    main()
