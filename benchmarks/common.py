"""What several benchmarks share: where the evaluation data is, and a statute repository."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from legaldb import StatuteRepository, import_corpus, make_engine, read_repealed, upgrade
from legaldb.corpus import read_statutes

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("LEXGATE_SHARED_DIR", ROOT.parent / "shared"))
ANSWERS = SHARED / "eval" / "flzx_dev_answers.jsonl"


def fresh_database(prefix: str = "lexgate-bench-") -> str:
    """The URL of a fresh SQLite file holding the bundled corpus (not timed), in a temporary
    folder removed when the process exits (each is ~125 MB)."""
    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    url = f"sqlite:///{Path(folder) / 'corpus.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    import_corpus(engine, read_statutes(repealed=read_repealed()), repealed=read_repealed())
    engine.dispose()
    return url


def repository(url: str | None, prefix: str = "lexgate-bench-") -> StatuteRepository:
    """The repository of url, or of a fresh SQLite file holding the bundled corpus (not timed)."""
    return StatuteRepository.load(make_engine(url or fresh_database(prefix)))


async def timed_post(
    http: httpx.AsyncClient, path: str, body: Any, latencies: list[float], errors: dict[str, int]
) -> None:
    """POST body to path: its latency (s) into latencies if it answers 200, else its error kind
    (status or exception name) counted in errors."""
    begun = time.perf_counter()
    try:
        response = await http.post(path, json=body)
    except httpx.HTTPError as error:
        errors[type(error).__name__] = errors.get(type(error).__name__, 0) + 1
        return
    if response.status_code == 200:
        latencies.append(time.perf_counter() - begun)
    else:
        errors[str(response.status_code)] = errors.get(str(response.status_code), 0) + 1


def percentile(values: list[float], q: float) -> float:
    """The q-quantile of values (nearest rank below)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
