"""LexGate at a million articles: import, worker memory, start-up, lookups, check latency.

    .venv/bin/python -m benchmarks.scale_bench [--articles 1000000] [--databases postgresql,sqlite]

Imports two libraries into an embedded PostgreSQL and into SQLite files: the bundled statutes
alone (what `lexgate db init` imports: national texts, history, flk), and the same grown with
synthetic laws to --articles articles (benchmarks/synthetic_library.py). PostgreSQL gets a
VACUUM ANALYZE after the import, as after any bulk load (timed apart). For each library and
database, a fresh process plays a worker twice: the first loads the statute index from the
tables (and writes the snapshot), the second from the snapshot (LEXGATE_CACHE_DIR); each
builds the extractor's lexicon (or reads it back), checks the 2,750 answers of
flzx_dev_answers.jsonl one by one (as of 2023-08-01: the per-answer latency of a cold worker,
wall and CPU time), times lookups drawn from the library's laws, and reports its memory (VmRSS
after loading and at the end, VmHWM). Then `lexgate db prepare` makes every version's derived
files in a new cache directory (timed, its size reported), and a third worker runs on it. The
load average is printed with each block: the machine is shared, so wall figures carry it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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
from legaldb import (
    StatuteRepository,
    import_corpus,
    make_engine,
    read_repealed,
    tune_collector,
    upgrade,
)
from legaldb.corpus import read_statutes
from legaldb.models import CorpusRead


def read_library(articles: int) -> tuple[CorpusRead, dict[str, float]]:
    """The bundled statutes grown to `articles` (0: as they are); reading and generating timed."""
    read_s, real = timed(lambda: read_statutes(repealed=read_repealed()))
    generate_s, corpus = timed(lambda: synthetic_library(real, articles))
    return corpus, {"read_s": read_s, "generate_s": generate_s}


def import_library(url: str, corpus: CorpusRead) -> dict[str, float | int]:
    """Migrate url and import the library into it (the write timed, wall and CPU)."""
    upgrade(url)
    engine = make_engine(url)
    cpu = time.process_time()
    try:
        write_s, imported = timed(lambda: import_corpus(engine, corpus, repealed=read_repealed()))
        figures: dict[str, float | int] = {
            "laws": imported.counts["laws"],
            "versions": imported.counts["versions"],
            "articles": imported.counts["articles"],
            "write_s": write_s,
            "write_cpu_s": time.process_time() - cpu,
        }
        if engine.dialect.name == "postgresql":
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                figures["vacuum_analyze_s"], _ = timed(
                    lambda: conn.execute(sa.text("VACUUM ANALYZE"))
                )
    finally:
        engine.dispose()
    figures["load_average"] = os.getloadavg()[0]
    return figures


def probe(url: str, cache_dir: str) -> dict[str, float | int]:
    """One worker: load (snapshot if there is one), lookups, check every answer; its memory."""
    from verifier import check, lexicon_of

    load_average = os.getloadavg()[0]
    engine = make_engine(url)
    load_s, repository = timed(lambda: StatuteRepository.load(engine, Path(cache_dir)))
    tune_collector()  # as the CLI and the web workers do after loading
    lexicon_s, _ = timed(lambda: lexicon_of(repository))
    after_load_mb = memory_mb("VmRSS")
    answers = [json.loads(line)["answer"] for line in ANSWERS.open(encoding="utf-8")]
    latencies, cpu_times = [], []
    for answer in answers:
        started, started_cpu = time.perf_counter(), time.process_time()
        check(answer, repository, date(2023, 8, 1))
        latencies.append(time.perf_counter() - started)
        cpu_times.append(time.process_time() - started_cpu)
    latencies.sort()
    cpu_times.sort()
    lookups = bench_lookups(repository)
    return {
        "load_average_at_start": load_average,
        "load_s": load_s,
        "lexicon_s": lexicon_s,
        "rss_after_load_mb": after_load_mb,
        "check_p50_ms": percentile(latencies, 0.5) * 1000,
        "check_p99_ms": percentile(latencies, 0.99) * 1000,
        "check_cpu_p50_ms": percentile(cpu_times, 0.5) * 1000,
        "check_cpu_p99_ms": percentile(cpu_times, 0.99) * 1000,
        "check_total_s": sum(latencies),
        "check_total_cpu_s": sum(cpu_times),
        "lookups_first_pass_per_s": lookups["first_pass_per_s_wall"],
        "lookups_first_pass_per_cpu_s": lookups["first_pass_per_cpu_s"],
        "lookups_warm_per_s": lookups["warm_per_s_wall"],
        "lookups_warm_per_cpu_s": lookups["warm_per_cpu_s"],
        "rss_end_mb": memory_mb("VmRSS"),
        "peak_rss_mb": memory_mb("VmHWM"),
        "load_average_at_end": os.getloadavg()[0],
    }


def percentile(ordered: list[float], share: float) -> float:
    """The value at `share` of an ascending list."""
    return ordered[min(int(len(ordered) * share), len(ordered) - 1)]


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


def run_prepare(url: str, cache_dir: str) -> dict[str, float | int]:
    """`lexgate db prepare` in a fresh process (the snapshot, the lexicon, every version's texts
    and quote index, on every CPU): wall and CPU time (its workers' included), the files made
    and their size on disk."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [str(Path(sys.executable).parent / "lexgate"), "db", "prepare"],
        env={**os.environ, "LEXGATE_DATABASE_URL": url, "LEXGATE_CACHE_DIR": cache_dir},
        check=True,
        capture_output=True,
    )
    wall_s = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    files = [path for path in Path(cache_dir).rglob("*") if path.is_file()]
    return {
        "prepare_s": wall_s,
        "prepare_cpu_s": after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
        "texts_files": sum(path.name.startswith("texts-") for path in files),
        "quotes_files": sum(path.name.startswith("quotes-") for path in files),
        "texts_mb": sum(p.stat().st_size for p in files if p.name.startswith("texts-")) / 1e6,
        "quotes_mb": sum(p.stat().st_size for p in files if p.name.startswith("quotes-")) / 1e6,
        "all_mb": sum(path.stat().st_size for path in files) / 1e6,
        "load_average_at_end": os.getloadavg()[0],
    }


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
    parser.add_argument("--databases", default="postgresql,sqlite")
    parser.add_argument("--probe", help=argparse.SUPPRESS)
    parser.add_argument("--cache-dir", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.probe:
        print(json.dumps(probe(args.probe, args.cache_dir)))
        return

    databases = args.databases.split(",")
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores)")
    with tempfile.TemporaryDirectory(prefix="lexgate-scale-") as tmp:
        server, first_url = None, ""
        if "postgresql" in databases:
            server, first_url = embedded_postgres_url(str(Path(tmp) / "pgdata"))
        try:
            for name, articles in (("national", 0), ("synthetic", args.articles)):
                corpus, reading = read_library(articles)
                report(f"Library: {name}", reading)
                for database in databases:
                    if database == "postgresql":
                        url = create_database(first_url, f"scale_{name}")
                    else:
                        url = f"sqlite:///{Path(tmp) / f'scale_{name}.sqlite3'}"
                    label = f"{name}, {database}"
                    report(f"Import ({label})", import_library(url, corpus))
                    cache = str(Path(tmp) / f"cache-{name}-{database}")
                    report(f"Worker, index from the tables ({label})", run_probe(url, cache))
                    report(f"Worker, index from the snapshot ({label})", run_probe(url, cache))
                    prepared = str(Path(tmp) / f"prepared-{name}-{database}")
                    report(f"lexgate db prepare ({label})", run_prepare(url, prepared))
                    report(f"Worker, prepared ({label})", run_probe(url, prepared))
                del corpus
        finally:
            if server is not None:
                server.cleanup()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
