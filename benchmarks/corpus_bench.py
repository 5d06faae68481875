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


def timed_read(source: Path) -> tuple[float, CorpusRead]:
    """(seconds, result) of one read_corpus."""
    started = time.perf_counter()
    read = read_corpus(source)
    return time.perf_counter() - started, read


def main() -> int:
    runs = [timed_read(BUNDLED_ARCHIVE) for _ in range(3)]
    seconds = sorted(s for s, _ in runs)
    print(f"bundled archive: {seconds[0]:.2f}-{seconds[-1]:.2f} s; {counts(runs[0][1])}")
    if FULL_CORPUS.is_dir():
        full_s, full = timed_read(FULL_CORPUS)
        print(f"directory with DLC/: {full_s:.2f} s; {counts(full)}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"(load average {load:.1f} on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
