"""Fresh-process times of the `lexgate` command: --help, a small check, the batch check, extract.

    .venv/bin/python -m benchmarks.startup_bench [--runs 5]

Each command runs --runs times in a new process (after `lexgate db init`; the statute
snapshot, the article texts and the quote indexes in LEXGATE_CACHE_DIR are made by the first
run, so the first batch run is reported apart; `check --jsonl` of the first answer alone is
the batch's fixed cost: imports, settings, the snapshot); wall and CPU (user + system of the child) are
reported as best and median, with the load average, since the 2 cores are shared with other
jobs. The batch commands are the ones issue 16 names: `lexgate check --jsonl` and `lexgate
extract --jsonl` over ../shared/eval/flzx_dev_answers.jsonl (2,750 answers), output discarded.

"Extraction" alone is timed in process: `extract` over the 2,750 answers with the statute
database's lexicon already built and a cold parse memo, CPU time, best of three; it leaves
out start-up (imports, loading the lexicon) and JSON output, which the fresh-process
`extract --jsonl` row includes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import ANSWERS, ROOT

LEXGATE = str(Path(sys.executable).with_name("lexgate"))
SMALL = "依照《中华人民共和国民法典》第五百七十七条，当事人一方不履行合同义务的，应当承担违约责任。"


def timed_run(args: list[str], stdin: str | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(args, input=stdin, text=True, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def runs(label: str, args: list[str], count: int, stdin: str | None = None) -> None:
    """Run a command count times; print best and median wall and CPU."""
    walls, cpus = zip(*(timed_run(args, stdin) for _ in range(count)), strict=True)
    print(
        f"  {label:44} wall best {min(walls):.3f} s, median {statistics.median(walls):.3f} s; "
        f"CPU best {min(cpus):.3f} s, median {statistics.median(cpus):.3f} s "
        f"(load {os.getloadavg()[0]:.1f})",
        flush=True,
    )


def extraction() -> None:
    """extract() over the answers in this process, parse memo cold, best of three."""
    from extractor import extract
    from extractor.grammar import clear_memos
    from legaldb import StatuteRepository, make_engine
    from lexgate.settings import get_settings
    from verifier import lexicon_of

    settings = get_settings()
    repository = StatuteRepository.load(make_engine(settings.database_url), settings.cache_dir)
    lexicon = lexicon_of(repository)

    answers = [json.loads(line)["answer"] for line in ANSWERS.open(encoding="utf-8")]
    cpu = []
    for _ in range(3):
        clear_memos()
        started = time.process_time()
        for answer in answers:
            extract(answer, lexicon)
        cpu.append(time.process_time() - started)
    print(f"  {'extract x 2,750, parse memo cold (CPU)':44} best {min(cpu):.3f} s")


def main(argv: list[str] | None = None) -> None:
    """Time --help, a small check, and the batch check in fresh processes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores)")
    runs("lexgate --help", [LEXGATE, "--help"], args.runs)
    runs("lexgate check - (one citation)", [LEXGATE, "check", "-"], args.runs, SMALL)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8") as one:
        one.write(ANSWERS.open(encoding="utf-8").readline())
        one.flush()
        runs("check --jsonl (the first answer)", [LEXGATE, "check", "--jsonl", one.name],
             args.runs)  # fmt: skip
    batch = [LEXGATE, "check", "--jsonl", str(ANSWERS)]
    with tempfile.TemporaryDirectory(prefix="lexgate-startup-") as cache:
        os.environ["LEXGATE_CACHE_DIR"] = cache
        runs("check --jsonl (2,750 answers), no snapshot yet", batch, 1)
        runs("check --jsonl (2,750 answers)", batch, args.runs)
        runs("extract --jsonl (2,750 answers)", [LEXGATE, "extract", "--jsonl", str(ANSWERS)],
             args.runs)  # fmt: skip
        extraction()


if __name__ == "__main__":
    main()
