"""The first pass of lookups over a statute library: per CPU second, instructions, digest.

    python -m benchmarks.lookup_pass --database sqlite:///A --database sqlite:///B \
        --cache-dir DIR [--runs 3] [--queries 200000]
    python -m benchmarks.lookup_pass --database sqlite:///A --cache-dir DIR --callgrind [--warm]
    python -m benchmarks.lookup_pass --database sqlite:///A --cache-dir DIR --digest

Each run is a fresh process that opens the repository from its snapshot in --cache-dir (made
from the tables first when there is none: `StatuteRepository.load`), tunes the collector as a
worker does, draws `benchmarks.legaldb_bench.lookup_queries(repository, N)` and runs them
through `repository.lookup` four times, the loop in a function: the first pass (every query
new to the process: names resolved, timelines opened, answers made) and three warm ones, each
after `gc.collect()`, timed with `time.process_time()` (CPU) and `time.perf_counter()`
(wall). With several --database the runs alternate between them, so that the libraries share
the same minutes of a shared machine; the load average is printed with each run.

--callgrind counts the instructions of the first pass alone (with --warm: of the second,
after one pass outside the count) under `valgrind --tool=callgrind --instr-atstart=no`,
switched on and off around the loop by `callgrind_control -i` (PYTHONHASHSEED=0). Instruction
counts do not depend on the load. --digest prints the sha256 of the answers' `repr`s joined by
newlines (the same digest: the same answers). The process runs the current directory's
checkout (PYTHONPATH=.), so another checkout is measured from its own directory with this file
and the same virtualenv.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

from benchmarks.legaldb_bench import lookup_queries
from legaldb import StatuteRepository, make_engine, tune_collector
from legaldb.models import Lookup

Query = tuple[str, int, None, date]


def _repository(url: str, cache_dir: Path) -> StatuteRepository:
    """The repository from its snapshot (written from the tables when there is none)."""
    kept = StatuteRepository.open_kept(url, cache_dir)
    return kept or StatuteRepository.load(make_engine(url), cache_dir)


def _pass(lookup: Callable[[str, int, None, date], Lookup], queries: list[Query]) -> None:
    for name, number, suffix, as_of in queries:
        lookup(name, number, suffix, as_of)


def _callgrind(switch: str) -> None:
    subprocess.run(["callgrind_control", "-i", switch, str(os.getpid())], check=True,
                   capture_output=True)  # fmt: skip


def one_process(url: str, cache_dir: Path, queries: int, mode: str) -> None:
    """One run (in its own process): mode `time`, `digest`, `count-first` or `count-warm`
    (`open`: only make the snapshot when there is none)."""
    repository = _repository(url, cache_dir)
    if mode == "open":
        return
    tune_collector()  # as the CLI and the web workers do after loading
    drawn = lookup_queries(repository, queries)
    lookup = repository.lookup
    if mode == "digest":
        joined = "\n".join(repr(lookup(*query)) for query in drawn)
        print(hashlib.sha256(joined.encode()).hexdigest())
        return
    if mode.startswith("count"):
        if mode == "count-warm":
            _pass(lookup, drawn)
        gc.collect()
        _callgrind("on")
        _pass(lookup, drawn)
        _callgrind("off")
        return
    load_average = os.getloadavg()[0]
    cpu, wall = [], []
    for _ in range(4):
        gc.collect()
        started, started_cpu = time.perf_counter(), time.process_time()
        _pass(lookup, drawn)
        cpu.append(time.process_time() - started_cpu)
        wall.append(time.perf_counter() - started)
    figures = {
        "load_average": load_average,
        "first_per_cpu_s": queries / cpu[0],
        "first_per_s_wall": queries / wall[0],
        "warm_per_cpu_s": queries / min(cpu[1:]),
        "warm_per_s_wall": queries / min(wall[1:]),
    }
    figures["load_average_at_end"] = os.getloadavg()[0]
    print(json.dumps(figures))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database", action="append", required=True, help="sqlite:///FILE")
    parser.add_argument("--cache-dir", type=Path, required=True, help="the snapshots' directory")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per database")
    parser.add_argument("--queries", type=int, default=200_000)
    parser.add_argument("--callgrind", action="store_true", help="count instructions instead")
    parser.add_argument("--warm", action="store_true", help="with --callgrind: the second pass")
    parser.add_argument("--digest", action="store_true", help="the answers' digest instead")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a run's mode, in its own process
    args = parser.parse_args()
    if args.one:
        one_process(args.database[0], args.cache_dir, args.queries, args.one)
        return
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    itself = [sys.executable, str(Path(__file__).resolve()), "--cache-dir", str(args.cache_dir),
              "--queries", str(args.queries)]  # fmt: skip
    for url in args.database:  # the snapshots made first, outside the timed runs
        subprocess.run([*itself, "--database", url, "--one", "open"], check=True, env=env)
    if args.digest or args.callgrind:
        for url in args.database:
            mode = "digest" if args.digest else "count-warm" if args.warm else "count-first"
            command = [*itself, "--database", url, "--one", mode]
            if args.digest:
                digest = subprocess.run(
                    command, check=True, capture_output=True, text=True, env=env
                )
                print(f"{url}: answers' repr sha256 {digest.stdout.strip()}")
                continue
            counted = subprocess.run(
                ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                 "--callgrind-out-file=/dev/null", *command],
                capture_output=True, text=True, env={**env, "PYTHONHASHSEED": "0"},
            )  # fmt: skip
            if counted.returncode:
                sys.exit(f"the pass under callgrind failed:\n{counted.stderr[-3000:]}")
            found = re.search(r"Collected : (\d+)", counted.stderr)
            count = int(found.group(1)) if found else -1
            which = "second (warm)" if args.warm else "first"
            print(f"{url}: {which} pass of {args.queries:,} lookups, {count:,} instructions")
        return
    for run in range(args.runs):
        for url in args.database:
            command = [*itself, "--database", url, "--one", "time"]
            done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
            figures = json.loads(done.stdout)
            print(
                f"run {run + 1}, {url} (load {figures['load_average']:.1f}"
                f"–{figures['load_average_at_end']:.1f}): first pass "
                f"{figures['first_per_cpu_s']:,.0f} per CPU s ({figures['first_per_s_wall']:,.0f}"
                f"/s wall), warm {figures['warm_per_cpu_s']:,.0f} per CPU s "
                f"({figures['warm_per_s_wall']:,.0f}/s wall)",
                flush=True,
            )


if __name__ == "__main__":
    main()
