"""The files derived from the statutes, made for every version at import rather than on first use.

A repository with a `derived_dir` keeps, per version, the articles' texts (`texts-<id>.marshal`)
and whatever the packages above derive from them (the verifier's quote index); the first
process that needs a version's file makes it, and every process after reads it. `prepare`
makes them all at once, in forked workers sharing the loaded repository: a process then never
reads a version's texts from the tables, nor builds an index, the first time a law comes up
(a new PostgreSQL database's web workers did during their first few hundred gates). A file
already there in its current format is left as it is, so a second run makes nothing; a
missing, corrupt or old-format one is made again, as on first use: each step is the very
function the readers call (byte for byte the same file), written atomically
(textnorm.marshalled).
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from legaldb.repository import StatuteRepository

VersionStep = Callable[[StatuteRepository, int], bool]
"""Make one version's derived file unless it is there in its current format; True when made."""
WholeStep = Callable[[StatuteRepository], object]
"""Make (or read back) what is derived from the whole repository, such as the lexicon."""
Progress = Callable[[int, int], None]
"""Versions done, of all."""

CHUNK = 4  # versions a worker takes at a time: few round trips, an even share at the end


@dataclass(frozen=True)
class Derivations:
    """What the packages above legaldb derive from the statutes and keep in derived_dir."""

    per_version: tuple[VersionStep, ...] = ()
    whole: tuple[WholeStep, ...] = ()


@dataclass(frozen=True)
class Prepared:
    """What a `prepare` did: versions gone through, files made, the directory's size after."""

    directory: Path | None
    versions: int = 0
    made: int = 0
    seconds: float = 0.0
    size_bytes: int = 0
    workers: int = 1


# The repository and steps of the run in progress: forked workers inherit them (nothing is sent
# to a worker but version ids).
_RUN: tuple[StatuteRepository, tuple[VersionStep, ...]] | None = None


def prepare(
    repo: StatuteRepository,
    derivations: Derivations = Derivations(),
    jobs: int = 0,
    progress: Progress | None = None,
) -> Prepared:
    """Make every version's derived files (its texts, then each of derivations.per_version) and
    the whole-repository ones, on `jobs` forked workers (0: one per available CPU). Nothing to
    do without a derived_dir (no cache directory configured)."""
    directory = repo.derived_dir
    if directory is None:
        return Prepared(None)
    global _RUN
    started = time.perf_counter()
    for whole in derivations.whole:
        whole(repo)
    # Largest first, so that no worker is left with a big version at the end.
    versions = sorted(
        (v for law in repo.laws() for v in repo.versions(law.id) if v.has_text),
        key=lambda v: (-v.article_count, v.id),
    )
    ids = [v.id for v in versions]
    chunks = [ids[i : i + CHUNK] for i in range(0, len(ids), CHUNK)]
    workers = max(1, min(jobs if jobs > 0 else _available_cpus(), len(chunks)))
    if "fork" not in multiprocessing.get_all_start_methods():
        workers = 1  # pragma: no cover - platforms without fork
    _RUN = (repo, (StatuteRepository.keep_version_texts, *derivations.per_version))
    made, done = 0, 0
    try:
        if workers == 1:
            for chunk in chunks:
                made += _prepare_versions(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, len(ids))
        else:
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(workers, context, initializer=repo.after_fork) as pool:
                futures = {pool.submit(_prepare_versions, chunk): len(chunk) for chunk in chunks}
                try:
                    for future in as_completed(futures):
                        made += future.result()
                        done += futures[future]
                        if progress is not None:
                            progress(done, len(ids))
                except BaseException:
                    pool.shutdown(cancel_futures=True)  # stop soon: what is made is whole
                    raise
    finally:
        _RUN = None
    return Prepared(
        directory,
        versions=len(ids),
        made=made,
        seconds=time.perf_counter() - started,
        size_bytes=_size(directory),
        workers=workers,
    )


def _prepare_versions(version_ids: list[int]) -> int:
    """Run every step on each version (in a worker, or here); the number of files made."""
    if _RUN is None:  # pragma: no cover - set by prepare before any worker starts
        raise RuntimeError("_prepare_versions outside prepare()")
    repo, steps = _RUN
    return sum(step(repo, version_id) for version_id in version_ids for step in steps)


def _size(directory: Path) -> int:
    """The bytes of the files in directory (0 when it was never made)."""
    if not directory.is_dir():
        return 0
    return sum(entry.stat().st_size for entry in os.scandir(directory) if entry.is_file())


def _available_cpus() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # pragma: no cover - platforms without affinity
