"""JSON lines over several processes: the statute repository loaded once, the workers forked.

`lexgate check --jsonl` and `lexgate gate --jsonl` spend their time per answer. With `jobs`
above one, that many forked workers share the loaded repository and the parsed lines (copy on
write: nothing is sent to a worker), each taking the next CHUNK lines as it comes free, and
the lines come back in input order, the same bytes as one process gives. A bad line stops the
batch as it would in one process: the lines before it are given, then its `InputError`, and
nothing after it is read. Where `fork` is not available the work runs here. (The process that
loaded the statutes has frozen them out of the collector's walks, `legaldb.tune_collector`, so a
worker does not write to the pages it shares with its parent just to count them.)
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import date
from functools import partial
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar, cast

from verifier.errors import InputError
from verifier.inputs import jsonl_items, parse_as_of

T = TypeVar("T")
R = TypeVar("R")

CHUNK = 8  # answers a worker takes at a time: few round trips, an even share at the end

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
    else:
        yield from _forked_map(work, list(items), jobs, after_fork)


def _forked_map(
    work: Callable[[T], R],
    tasks: Sequence[T],
    jobs: int,
    after_fork: Callable[[], None] | None,
) -> Iterator[R]:
    context = multiprocessing.get_context("fork")
    taken = context.Value("q", 0)  # where the next chunk starts
    workers: dict[Connection, BaseProcess] = {}
    try:
        for _ in range(jobs):
            reader, writer = context.Pipe(duplex=False)
            process = context.Process(
                target=_serve, args=(work, tasks, taken, writer, after_fork), daemon=True
            )
            process.start()
            writer.close()
            workers[reader] = process
        done: dict[int, list[R]] = {}
        for start in range(0, len(tasks), CHUNK):
            while start not in done:
                _receive(workers, done)
            yield from done.pop(start)
        for worker in workers.values():
            worker.join()  # each ends once no chunk is left
    finally:
        for reader, worker in workers.items():
            if worker.is_alive():
                worker.terminate()
            worker.join()
            reader.close()


def _receive(workers: dict[Connection, BaseProcess], done: dict[int, list[Any]]) -> None:
    """Wait for the next chunk any worker finishes and put it in `done` by where it starts."""
    if not workers:
        raise RuntimeError("the batch's workers ended before their work was done")
    for reader in cast(list[Connection], wait(list(workers))):
        try:
            start, results = reader.recv()
        except EOFError:  # the worker ended: it has nothing more to give
            workers.pop(reader).join()
            reader.close()
            continue
        if isinstance(results, BaseException):
            raise results  # the work failed in the worker: as it would have here
        done[start] = results


def _serve(
    work: Callable[[Any], Any],
    tasks: Sequence[Any],
    taken: Any,
    out: Connection,
    after_fork: Callable[[], None] | None,
) -> None:
    """A worker: take the next chunk until none is left, sending (start, results) for each."""
    try:
        if after_fork is not None:
            after_fork()
        while True:
            with taken.get_lock():
                start = taken.value
                taken.value = start + CHUNK
            if start >= len(tasks):
                return
            out.send((start, [work(task) for task in tasks[start : start + CHUNK]]))
    except Exception as error:  # sent to the parent, which raises it
        out.send((-1, error))
    finally:
        out.close()


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
