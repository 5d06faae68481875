"""JSON lines over several processes: the statute repository loaded once, the workers forked.

`lexgate check --jsonl` and `lexgate gate --jsonl` spend their time per answer. With `jobs`
above one, that many forked workers share the loaded repository (copy on write) and the lines
come back in input order, the same bytes as one process gives. A bad line stops the batch as
it would in one process: the lines before it are given, then its `InputError`, and nothing
after it is read. Where `fork` is not available the work runs here.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from datetime import date
from functools import partial
from typing import Any, TypeVar

from verifier.errors import InputError
from verifier.inputs import jsonl_items, parse_as_of

T = TypeVar("T")
R = TypeVar("R")

CHUNK = 8  # answers a worker takes at a time: few round trips, an even share at the end

# The work of the batch in progress: set before the workers are forked, so they inherit it
# (a closure over the repository is never pickled).
_work: Callable[[Any], Any] | None = None

JsonlWork = Callable[[dict[str, Any], str, date], str]


def available_cpus() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # pragma: no cover - platforms without affinity


def workers_for(jobs: int, lines: int) -> int:
    """`jobs` (0: one per available CPU), no more than the lines give work for."""
    wanted = jobs if jobs > 0 else available_cpus()
    return max(1, min(wanted, lines // CHUNK))


def ordered_map(
    work: Callable[[T], R],
    items: Iterable[T],
    jobs: int,
    after_fork: Callable[[], None] | None = None,
) -> Iterator[R]:
    """work(item) for each item, in order; on `jobs` forked processes when jobs > 1
    (`after_fork` runs first in each), else in this one."""
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(work, items)
        return
    global _work
    _work = work
    try:
        with multiprocessing.get_context("fork").Pool(jobs, initializer=after_fork) as pool:
            yield from pool.imap(_run, items, CHUNK)
    finally:
        _work = None


def _run(item: Any) -> Any:
    assert _work is not None, "forked without the batch's work"
    return _work(item)


def map_jsonl(
    work: JsonlWork,
    lines: Iterable[str],
    default_as_of: date,
    *,
    jobs: int = 1,
    after_fork: Callable[[], None] | None = None,
) -> Iterator[str]:
    """work(item, answer, as_of) for each line {"id", "answer", "as_of"?, …}, in input order."""
    tasks = _tasks(lines, default_as_of)
    for out in ordered_map(partial(_guarded, work), tasks, jobs, after_fork):
        if isinstance(out, InputError):
            raise out
        yield out


def _tasks(
    lines: Iterable[str], default_as_of: date
) -> Iterator[tuple[dict[str, Any], str, date] | InputError]:
    """The parsed lines; a bad one ends them as its error (raised by the reader in order)."""
    try:
        for number, item, answer in jsonl_items(lines):
            try:
                as_of = parse_as_of(item.get("as_of"), default_as_of)
            except InputError as error:
                raise InputError(f"line {number}: {error}") from None
            yield item, answer, as_of
    except InputError as error:
        yield error


def _guarded(
    work: JsonlWork, task: tuple[dict[str, Any], str, date] | InputError
) -> str | InputError:
    return task if isinstance(task, InputError) else work(*task)


__all__ = ["CHUNK", "available_cpus", "map_jsonl", "ordered_map", "workers_for"]
