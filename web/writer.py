"""A worker's gated answers: assessed in the order they came, in short turns of the event loop,
and recorded by one writer thread, in that order.

POST /api/v1/gate hands each request's assessment (CPU only) to the worker's `RecordWriter` and
awaits its outcome: the reply leaves only after the answer's record is committed.

- The assessments run in the event loop, one callback (`_turn`) at a time: each turn assesses
  the requests queued so far in the order they were queued (a request is never assessed after
  one that came later), for at most TURN_BUDGET_S of the loop's time, and hands what it
  assessed to the writer thread together. The loop then runs what became ready meanwhile (the
  replies whose records were committed, the requests that came in) before the next turn.
- One writer thread writes the answers handed over since its last transaction in one
  transaction (`write_many`, `settle_many`; at most MAX_BATCH): a transaction's fixed part,
  the pool, the lock, the files, the commit, is about 2 ms of CPU, paid once for all of them.

Before (issue 16's seventh pass), each request's task assessed when the loop got to it, and
the loop ran all the requests that had come in one turn: the answers of a turn went to the
writer after the last of them was assessed, the replies the writer committed meanwhile waited
for the whole turn (38-235 ms), and so did the requests that came during it: a request's
latency was two or three turns of whatever length each happened to be (docs/performance.md).
Short turns bound each of those waits; the rest of a request's wait is the queue ahead of it,
in order.

Tried and not kept: the write in the event loop at the end of each turn (no thread). Its
batch took its CPU time instead of the 90-140 ms the thread takes while the loop assesses, but
the loop then also waited for the other workers' writes (SQLite's writers take turns on a
`flock`), doing nothing: 97-123 gates/s in `make soak` on SQLite against 137-178/s with the
thread and 134-166/s for the code before, alternating at load 3-7.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

MAX_BATCH = 64
"""At most this many answers are written together (one transaction)."""
TURN_BUDGET_S = 0.025
"""The loop's time one turn may spend assessing before it hands over what it has and lets the
loop send replies and read requests: about five usual answers."""


@dataclass(frozen=True, slots=True)
class _Job(Generic[Item, Result]):
    assess: Callable[[], Item]
    future: asyncio.Future[Result]


@dataclass(frozen=True, slots=True)
class _Assessed(Generic[Item, Result]):
    item: Item
    future: asyncio.Future[Result]


def _resolve(future: asyncio.Future[Result], outcome: Result | BaseException) -> None:
    if future.done():  # the request was cancelled meanwhile; its record stands
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


class _LoopQueue(Generic[Item, Result]):
    """The jobs queued in one event loop, and whether a turn is scheduled there."""

    def __init__(self) -> None:
        self.jobs: deque[_Job[Item, Result]] = deque()
        self.scheduled = False


class RecordWriter(Generic[Item, Result]):
    """Assesses the jobs of each event loop in the order they came, in short turns, and has
    one thread run `write_many(items)` over the items assessed since its last call (see the
    module's docstring); each job's caller awaits its own result, or the exception its
    assessment or its write raised."""

    def __init__(
        self,
        write_many: Callable[[Sequence[Item]], list[Result | BaseException]],
        *,
        budget_s: float = TURN_BUDGET_S,
    ) -> None:
        self._write_many = write_many
        self._budget_s = budget_s
        self._queues: dict[asyncio.AbstractEventLoop, _LoopQueue[Item, Result]] = {}
        self._handed: queue.SimpleQueue[list[_Assessed[Item, Result]] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    async def write(self, item: Item) -> Result:
        """item (assessed already) written after the jobs queued before it; its result."""
        return await self.assess_and_write(lambda: item)

    async def assess_and_write(self, assess: Callable[[], Item]) -> Result:
        """assess() run in its turn, after the jobs queued before it, and its item written;
        its result once written (or the exception assess() or the write raised)."""
        self._start()
        loop = asyncio.get_running_loop()
        pending = self._queues.get(loop)
        if pending is None:
            pending = self._queues[loop] = _LoopQueue()
        future: asyncio.Future[Result] = loop.create_future()
        pending.jobs.append(_Job(assess, future))
        if not pending.scheduled:
            pending.scheduled = True
            loop.call_soon(self._turn, loop, pending)
        return await future

    def _turn(self, loop: asyncio.AbstractEventLoop, pending: _LoopQueue[Item, Result]) -> None:
        """Assess the queued jobs in order, within the budget, and hand them to the thread;
        the next turn after what became ready meanwhile."""
        deadline = time.monotonic() + self._budget_s
        assessed: list[_Assessed[Item, Result]] = []
        try:
            while pending.jobs:
                job = pending.jobs.popleft()
                if job.future.done():  # cancelled before its turn: nothing to record
                    continue
                try:
                    assessed.append(_Assessed(job.assess(), job.future))
                except Exception as error:  # the caller's to raise: 409, 503, a bug's 500
                    job.future.set_exception(error)
                if time.monotonic() >= deadline:
                    break
        finally:
            if assessed:
                self._handed.put(assessed)
            if pending.jobs:
                loop.call_soon(self._turn, loop, pending)  # behind what became ready meanwhile
            else:
                pending.scheduled = False
                if self._queues.get(loop) is pending:
                    del self._queues[loop]

    def _start(self) -> None:
        if self._thread is not None:
            return
        with self._lock:
            if self._thread is None:
                thread = threading.Thread(target=self._run, name="lexgate-record-writer")
                thread.daemon = True  # a worker killed mid-write loses only unacknowledged work
                thread.start()
                self._thread = thread

    def _run(self) -> None:
        while True:
            first = self._handed.get()
            if first is None:
                return
            jobs = list(first)
            while len(jobs) < MAX_BATCH:
                try:
                    more = self._handed.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._handed.put(None)  # stop after this batch
                    break
                jobs += more
            for start in range(0, len(jobs), MAX_BATCH):
                self._write(jobs[start : start + MAX_BATCH])

    def _write(self, jobs: list[_Assessed[Item, Result]]) -> None:
        try:
            outcomes = self._write_many([job.item for job in jobs])
        except BaseException as error:  # write_many reports per item; this is a bug
            outcomes = [error] * len(jobs)
        for job, outcome in zip(jobs, outcomes, strict=True):
            job.future.get_loop().call_soon_threadsafe(_resolve, job.future, outcome)

    def close(self) -> None:
        """Stop the thread once the answers handed over so far are written."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._handed.put(None)
            thread.join()


__all__ = ["MAX_BATCH", "TURN_BUDGET_S", "RecordWriter"]
