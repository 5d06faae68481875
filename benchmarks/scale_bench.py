"""LexGate at a million articles: import, worker memory, start-up, lookups, check latency.

    .venv/bin/python -m benchmarks.scale_bench [--articles 1000000]

Starts an embedded PostgreSQL and imports two libraries into it: the bundled national corpus
alone, and the national corpus grown with synthetic laws to --articles articles
(benchmarks/synthetic_library.py). For each, a fresh process plays a worker twice: the first
loads the statute index from the tables (and writes the snapshot), the second from the
snapshot (LEXGATE_CACHE_DIR); each then times lookups drawn from the library's laws and checks
the 2,750 answers of flzx_dev_answers.jsonl one by one (as of 2023-08-01, the per-answer
latency of a cold worker), and reports its memory (VmRSS after loading and at the end, VmHWM).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import sqlalchemy as sa

from benchmarks.common import ANSWERS
from benchmarks.legaldb_bench import bench_lookups, embedded_postgres_url, report, timed
from benchmarks.synthetic_library import synthetic_library
from legaldb import StatuteRepository, import_corpus, make_engine, read_repealed, upgrade
from legaldb.corpus import BUNDLED_ARCHIVE, read_corpus


def import_library(url: str, articles: int) -> dict[str, float | int]:
    """Build the library (national corpus, grown to `articles`) and import it into url."""
    read_s, real = timed(lambda: read_corpus(BUNDLED_ARCHIVE))
    generate_s, corpus = timed(lambda: synthetic_library(real, articles))
    upgrade(url)
    engine = make_engine(url)
    try:
        write_s, imported = timed(lambda: import_corpus(engine, corpus, repealed=read_repealed()))
    finally:
        engine.dispose()
    return {
        "laws": imported.counts["laws"],
        "versions": imported.counts["versions"],
        "articles": imported.counts["articles"],
        "read_s": read_s,
        "generate_s": generate_s,
        "write_s": write_s,
    }


def probe(url: str, cache_dir: str) -> dict[str, float | int]:
    """One worker: load (snapshot if there is one), lookups, check every answer; its memory."""
    from verifier import check, lexicon_of

    engine = make_engine(url)
    load_s, repository = timed(lambda: StatuteRepository.load(engine, Path(cache_dir)))
    lexicon_s, _ = timed(lambda: lexicon_of(repository))
    after_load_mb = memory_mb("VmRSS")
    answers = [json.loads(line)["answer"] for line in ANSWERS.open(encoding="utf-8")]
    latencies = []
    for answer in answers:
        started = time.perf_counter()
        check(answer, repository, date(2023, 8, 1))
        latencies.append(time.perf_counter() - started)
    latencies.sort()
    lookups = bench_lookups(repository)
    return {
        "load_s": load_s,
        "lexicon_s": lexicon_s,
        "rss_after_load_mb": after_load_mb,
        "check_p50_ms": latencies[len(latencies) // 2] * 1000,
        "check_p99_ms": latencies[int(len(latencies) * 0.99)] * 1000,
        "check_total_s": sum(latencies),
        "lookups_first_pass_per_s": lookups["first_pass_per_s_wall"],
        "lookups_first_pass_per_cpu_s": lookups["first_pass_per_cpu_s"],
        "lookups_warm_per_s": lookups["warm_per_s_wall"],
        "lookups_warm_per_cpu_s": lookups["warm_per_cpu_s"],
        "rss_end_mb": memory_mb("VmRSS"),
        "peak_rss_mb": memory_mb("VmHWM"),
    }


def memory_mb(field: str) -> float:
    """VmRSS (now) or VmHWM (peak) of this process, MB (ru_maxrss would count the parent's
    memory: Linux carries it across exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run_probe(url: str, cache_dir: str) -> dict[str, float | int]:
    """probe() in a fresh process (its memory is a worker's alone)."""
    output = subprocess.run(
        [sys.executable, "-m", "benchmarks.scale_bench", "--probe", url, "--cache-dir", cache_dir],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    figures: dict[str, float | int] = json.loads(output.strip().splitlines()[-1])
    return figures


def create_database(admin_url: str, name: str) -> str:
    """A fresh database on the server of admin_url; its URL."""
    engine = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return admin_url.replace("/lexgate_bench?", f"/{name}?")


def main(argv: list[str] | None = None) -> None:
    """Import both libraries into an embedded PostgreSQL and probe a worker on each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=1_000_000)
    parser.add_argument("--probe", help=argparse.SUPPRESS)
    parser.add_argument("--cache-dir", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.probe:
        print(json.dumps(probe(args.probe, args.cache_dir)))
        return

    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores)")
    with tempfile.TemporaryDirectory(prefix="lexgate-scale-") as tmp:
        server, first_url = embedded_postgres_url(str(Path(tmp) / "pgdata"))
        try:
            for name, articles in (("national", 0), ("synthetic", args.articles)):
                url = create_database(first_url, f"scale_{name}")
                report(f"Import: {name} library into PostgreSQL", import_library(url, articles))
                cache = str(Path(tmp) / f"cache-{name}")
                report(f"Worker, index from the tables ({name})", run_probe(url, cache))
                report(f"Worker, index from the snapshot ({name})", run_probe(url, cache))
                print(f"load average now: {os.getloadavg()[0]:.2f}", flush=True)
        finally:
            server.cleanup()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
