"""JSON lines over several processes: the statute repository loaded once, the workers forked.

`lexgate check --jsonl` and `lexgate gate --jsonl` spend their time per answer. With `jobs`
above one, that many forked workers share the loaded repository and the input lines (copy on
write: nothing is sent to a worker), and the lines come back in input order, the same bytes as
one process gives.

Which worker takes which line: a worker's time goes as much into what it reads and works out
the first time a law comes up (the law's texts and quote index read back, its articles
prepared, its citations classified and located: memoised for the next answer) as into the
answers themselves. So when the caller gives an `affinity` (a key per line, such as the law an
answer cites most, and a weight, its length), the lines are planned into one queue per worker,
those with the same key in the same queue and the queues' weights even; each worker takes
CHUNK lines at a time from its own queue, then, once that is empty, from the end of the
fullest other one (so no worker waits while another has work left). Without an affinity all
workers take from one queue, in input order.

A line is read (JSON, its fields, its date) by the worker that works on it. A bad line stops
the batch as it would in one process: the lines before it are given, then its `InputError`,
and nothing after it. Where `fork` is not available the work runs here. (The process that
loaded the statutes has frozen them out of the collector's walks, `legaldb.tune_collector`,
so a worker does not write to the pages it shares with its parent just to count them.)
"""

from __future__ import annotations

import heapq
import multiprocessing
import os
import re
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from datetime import date
from functools import partial
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar, cast

from verifier.errors import InputError
from verifier.inputs import jsonl_item, parse_as_of

T = TypeVar("T")
R = TypeVar("R")

CHUNK = 8  # lines a worker takes at a time: few round trips, an even share at the end

JsonlWork = Callable[[dict[str, Any], str, date], R]
# A task's key (tasks with the same key go to the same worker; None: to any) and its weight.
Affinity = Callable[[T], tuple[Hashable | None, int]]


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
    affinity: Affinity[T] | None = None,
) -> Iterator[R]:
    """work(item) for each item, in order; on `jobs` forked processes when jobs > 1
    (`after_fork` runs first in each; `affinity` plans which takes which), else in this one."""
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(work, items)
    else:
        tasks = list(items)
        queues = plan(tasks, jobs, affinity) if affinity is not None else [range(len(tasks))]
        yield from _forked_map(work, tasks, queues, jobs, after_fork)


def plan(tasks: Sequence[T], jobs: int, affinity: Affinity[T]) -> list[list[int]]:
    """One queue of task positions per worker: the tasks with one key together, each key's
    tasks placed in turn (the heaviest first) on the queue with the least weight so far; the
    tasks without a key last, one at a time, to even the queues out. Each queue in input order."""
    groups: dict[Hashable, tuple[list[int], list[int]]] = {}  # key: ([weight], positions)
    loose: list[tuple[int, int]] = []
    for position, task in enumerate(tasks):
        key, weight = affinity(task)
        if key is None:
            loose.append((weight, position))
            continue
        group = groups.get(key)
        if group is None:
            group = groups[key] = ([0], [])
        group[0][0] += weight
        group[1].append(position)
    placed = [(total, positions) for (total,), positions in groups.values()]
    placed.sort(key=lambda group: -group[0])  # stable: equal weights keep their input order
    placed.extend((weight, [position]) for weight, position in sorted(loose, key=lambda w: -w[0]))
    queues: list[list[int]] = [[] for _ in range(jobs)]
    lightest = [(0, worker) for worker in range(jobs)]  # (weight so far, worker)
    for total, positions in placed:
        weight, worker = lightest[0]
        queues[worker].extend(positions)
        heapq.heapreplace(lightest, (weight + total, worker))
    for queue in queues:
        queue.sort()
    return queues


def _forked_map(
    work: Callable[[T], R],
    tasks: Sequence[T],
    queues: Sequence[Sequence[int]],
    jobs: int,
    after_fork: Callable[[], None] | None,
) -> Iterator[R]:
    context = multiprocessing.get_context("fork")
    order = [position for queue in queues for position in queue]
    # Where each queue's next and past-last tasks are in `order`: [next0, end0, next1, end1, …]
    bounds: list[int] = []
    for queue in queues:
        start = bounds[-1] if bounds else 0
        bounds += [start, start + len(queue)]
    shared = context.Array("q", bounds)
    workers: dict[Connection, BaseProcess] = {}
    try:
        for number in range(jobs):
            reader, writer = context.Pipe(duplex=False)
            process = context.Process(
                target=_serve,
                args=(work, tasks, order, shared, number % len(queues), writer, after_fork),
                daemon=True,
            )
            process.start()
            writer.close()
            workers[reader] = process
        done: dict[int, R] = {}
        for position in range(len(tasks)):
            while position not in done:
                _receive(workers, order, done)
            yield done.pop(position)
        for worker in workers.values():
            worker.join()  # each ends once no task is left
    finally:
        for reader, worker in workers.items():
            if worker.is_alive():
                worker.terminate()
            worker.join()
            reader.close()


def _receive(
    workers: dict[Connection, BaseProcess], order: Sequence[int], done: dict[int, Any]
) -> None:
    """Wait for the next chunk any worker finishes and put its results in `done` by position."""
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
        done.update(zip(order[start : start + len(results)], results, strict=True))


def _take(shared: Any, home: int) -> tuple[int, int]:
    """The next chunk (start, end in `order`): from the home queue's front, else from the end
    of the queue with the most left; (0, 0) when no task is left."""
    with shared.get_lock():
        bounds = shared.get_obj()
        start, end = bounds[2 * home], bounds[2 * home + 1]
        if start < end:
            bounds[2 * home] = taken = min(start + CHUNK, end)
            return start, taken
        fullest = max(range(len(bounds) // 2), key=lambda q: bounds[2 * q + 1] - bounds[2 * q])
        start, end = bounds[2 * fullest], bounds[2 * fullest + 1]
        if start >= end:
            return 0, 0
        bounds[2 * fullest + 1] = taken = max(start, end - CHUNK)
        return taken, end


def _serve(
    work: Callable[[Any], Any],
    tasks: Sequence[Any],
    order: Sequence[int],
    shared: Any,
    home: int,
    out: Connection,
    after_fork: Callable[[], None] | None,
) -> None:
    """A worker: take chunks until none is left, sending (start in `order`, results) for each."""
    try:
        if after_fork is not None:
            after_fork()
        while True:
            start, end = _take(shared, home)
            if start == end:
                return
            out.send((start, [work(tasks[order[n]]) for n in range(start, end)]))
    except Exception as error:  # sent to the parent, which raises it
        out.send((-1, error))
    finally:
        out.close()


def map_jsonl(
    work: JsonlWork[R],
    lines: Iterable[str],
    default_as_of: date,
    *,
    jobs: int = 1,
    after_fork: Callable[[], None] | None = None,
    affinity: Callable[[str], Hashable | None] | None = None,
) -> Iterator[R]:
    """work(item, answer, as_of) for each line {"id", "answer", "as_of"?, …}, in input order;
    `affinity(line)`: see the module's docstring (a line's weight is its length)."""
    numbered = ((number, line) for number, line in enumerate(lines, start=1) if line.strip())
    keyed = None if affinity is None else partial(_line_affinity, affinity)
    for out in ordered_map(partial(_guarded, work, default_as_of), numbered, jobs, after_fork,
                           keyed):  # fmt: skip
        if isinstance(out, InputError):
            raise out
        yield out


def cited_law(line: str) -> str | None:
    """The law a line names most often in 《…》 (the first of those named as often; without
    中华人民共和国), or None: an affinity for answers (each worker reads and prepares a law's
    texts and quote index, and memoises its citations, once)."""
    found = _TITLE.findall(line)
    if len(found) <= 1:  # one law named or none (over half the lines): nothing to count
        return found[0].removeprefix("中华人民共和国") if found else None
    counts: dict[str, int] = {}
    for name in found:
        name = name.removeprefix("中华人民共和国")
        counts[name] = counts.get(name, 0) + 1
    return max(counts, key=counts.__getitem__)  # the first named of the most named


_TITLE = re.compile("《(.{1,40}?)》")  # a literal first: found by the engine's fast scan


def _line_affinity(
    affinity: Callable[[str], Hashable | None], task: tuple[int, str]
) -> tuple[Hashable | None, int]:
    return affinity(task[1]), len(task[1])


def _guarded(work: JsonlWork[R], default_as_of: date, task: tuple[int, str]) -> R | InputError:
    """work(…) of the numbered line, or the InputError that says why the line is bad."""
    number, line = task
    try:
        item, answer = jsonl_item(number, line)
        try:
            as_of = parse_as_of(item.get("as_of"), default_as_of)
        except InputError as error:
            raise InputError(f"line {number}: {error}") from None
    except InputError as error:
        return error
    return work(item, answer, as_of)


__all__ = [
    "CHUNK",
    "available_cpus",
    "cited_law",
    "map_jsonl",
    "ordered_map",
    "plan",
    "workers_for",
]
