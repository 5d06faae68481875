"""Extractor speed: the 2,750 development answers, next to a plain `re` scan for 第…条.

    .venv/bin/python -m benchmarks.extractor_bench

The lexicon is the one `lexgate extract` uses: every law name and alias of a statute database,
here a temporary SQLite database built from the bundled corpus (not timed). Times are CPU
time (`time.process_time`), best of five passes; a "cold" pass starts with empty parse and
numeral memos and the lexicon's memos of names emptied, a "warm" one finds every span and name
of the corpus in them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from extractor import Lexicon, extract
from extractor.grammar import clear_memos, parse_law, parse_run

SHARED = Path(os.environ.get("LEXGATE_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))
ANSWERS = SHARED / "eval" / "flzx_dev_answers.jsonl"
PLAIN_SCAN = re.compile(r"第[0-9０-９零〇一二两三四五六七八九十百千]+条")
PASSES = 5


def database_lexicon() -> Lexicon:
    """The lexicon of a fresh SQLite statute database holding the bundled corpus."""
    from legaldb import StatuteRepository, import_corpus, make_engine, read_repealed, upgrade
    from legaldb.corpus import read_statutes

    folder = tempfile.mkdtemp(prefix="lexgate-bench-")
    url = f"sqlite:///{folder}/statutes.sqlite3"
    upgrade(url)
    engine = make_engine(url)
    try:
        import_corpus(engine, read_statutes(repealed=read_repealed()), repealed=read_repealed())
        return Lexicon.from_mapping(StatuteRepository.load(engine).lexicon())
    finally:
        engine.dispose()
        shutil.rmtree(folder, ignore_errors=True)


def best_of(passes: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(passes):
        started = time.process_time()
        run()
        times.append(time.process_time() - started)
    return min(times)


def main() -> None:
    answers = [json.loads(line)["answer"] for line in ANSWERS.open(encoding="utf-8")]
    megabytes = sum(len(a.encode("utf-8")) for a in answers) / 1e6
    lexicon = database_lexicon()
    print(f"{len(answers)} answers, {megabytes:.2f} MB (UTF-8), lexicon of {len(lexicon)} names")

    mentions = sum(len(PLAIN_SCAN.findall(a)) for a in answers)
    plain = best_of(PASSES, lambda: [PLAIN_SCAN.findall(a) for a in answers])

    def cold_pass() -> None:
        clear_memos()
        lexicon.forget()
        for answer in answers:
            extract(answer, lexicon)

    cold = best_of(PASSES, cold_pass)
    parsed = f"{parse_law.cache_info().misses} law parts and {parse_run.cache_info().misses} runs"
    citations = sum(len(extract(a, lexicon)) for a in answers)
    warm = best_of(PASSES, lambda: [extract(a, lexicon) for a in answers])
    bare = best_of(PASSES, lambda: [extract(a) for a in answers])

    latencies = []
    for answer in answers:
        started = time.perf_counter()
        extract(answer, lexicon)
        latencies.append(time.perf_counter() - started)
    latencies.sort()

    rows = [
        ("plain re scan for 第…条", plain, f"{mentions} mentions"),
        ("extract, cold parse memo", cold, f"{citations} citations, {parsed} parsed"),
        ("extract, warm", warm, f"{citations} citations"),
        ("extract, warm, no lexicon", bare, "titles and law-shaped names only"),
    ]
    print("| What | CPU ms | answers/s | MB/s | × plain scan | |")
    print("|---|---|---|---|---|---|")
    for name, seconds, note in rows:
        print(
            f"| {name} | {seconds * 1e3:.1f} | {len(answers) / seconds:,.0f} | "
            f"{megabytes / seconds:.1f} | {seconds / plain:.0f} | {note} |"
        )
    print(
        f"per answer (wall, warm): median {statistics.median(latencies) * 1e6:.0f} µs, "
        f"p99 {latencies[int(len(latencies) * 0.99)] * 1e6:.0f} µs, "
        f"max {latencies[-1] * 1e3:.1f} ms"
    )

    megabyte = 1_000_000
    adversarial = {
        "1 MB of 《": "《" * megabyte,
        "1 MB of 第": "第" * megabyte,
        "1 MB of 第一": "第一" * (megabyte // 2),
        "《 + 1 MB of text": "《" + "劳动合同法规定用人单位应当" * (megabyte // 13),
        "1 MB of 《劳动法》第一条规定。": "《劳动法》第一条规定。" * (megabyte // 11),
    }
    for name, text in adversarial.items():
        seconds = best_of(1, lambda text=text: extract(text, lexicon))
        print(f"adversarial {name}: {seconds:.3f} s")


if __name__ == "__main__":
    main()
