"""Speed of the corpus reader (parsing only, no database).

    .venv/bin/python benchmarks/corpus_bench.py

Reads the bundled national archive three times (best and worst reported) and, when the
shared lawrefbook tree is present, the whole tree with DLC/ once; prints the counts.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from legaldb.corpus import BUNDLED_ARCHIVE, read_corpus
from legaldb.models import CorpusRead

SHARED = Path(os.environ.get("LEXGATE_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))
FULL_CORPUS = SHARED / "corpus" / "lawrefbook"


def counts(read: CorpusRead) -> str:
    """laws, versions, articles, skipped and undated of one read."""
    versions = [v for law in read.laws for v in law.versions]
    articles = sum(len(v.articles) for v in versions)
    return (
        f"{len(read.laws):,} laws, {len(versions):,} versions, {articles:,} articles, "
        f"{len(read.skipped)} skipped, {len(read.undated)} undated"
    )


def timed_read(source: Path) -> tuple[float, float, CorpusRead]:
    """(wall seconds, CPU seconds of this process, result) of one read_corpus."""
    started, cpu = time.perf_counter(), time.process_time()
    read = read_corpus(source)
    return time.perf_counter() - started, time.process_time() - cpu, read


def main() -> int:
    runs = [timed_read(BUNDLED_ARCHIVE) for _ in range(3)]
    wall = sorted(run[0] for run in runs)
    cpu = sorted(run[1] for run in runs)
    print(
        f"bundled archive: wall {wall[0]:.2f}-{wall[-1]:.2f} s, CPU {cpu[0]:.2f}-{cpu[-1]:.2f} s; "
        f"{counts(runs[0][2])}"
    )
    if FULL_CORPUS.is_dir():
        full_wall, full_cpu, full = timed_read(FULL_CORPUS)
        print(f"directory with DLC/: wall {full_wall:.2f} s, CPU {full_cpu:.2f} s; {counts(full)}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"(load average {load:.1f} on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
