"""One writer thread per server process: the gated answers' audit records, in arrival order.

POST /api/v1/gate assesses an answer on the event loop (CPU only) and hands the writing (the
audit record, the kept round: database and file I/O) to this thread, then awaits it: the reply
leaves only after the record is committed. One thread instead of a request thread each keeps
the answers in the order they came (no 30 threads taking turns at the interpreter's lock) and
lets the thread write the answers that queued up meanwhile together (`settle_many`).

The answers gated in one turn of the event loop go to the thread together: a write
transaction's fixed cost (the pool, the lock, the files, the commit) is about 2.5 ms of CPU,
over half an answer's whole record when it carries one answer. Handing each answer over as
soon as it is gated woke the thread for one or two at a time under load; gathering them until
the loop has run the requests that were ready with them costs an idle server nothing (the
loop's turn ends at once) and a busy one no more than that turn.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

MAX_BATCH = 64
"""At most this many queued answers are written together (one transaction)."""


@dataclass(frozen=True, slots=True)
class _Job(Generic[Item, Result]):
    item: Item
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Result]


def _resolve(future: asyncio.Future[Result], outcome: Result | BaseException) -> None:
    if future.done():  # the request was cancelled meanwhile; its record stands
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


class RecordWriter(Generic[Item, Result]):
    """Runs `write_many(items)` in one thread for the items queued since its last call; each
    item's caller awaits its own result (or exception), in the items' order."""

    def __init__(
        self, write_many: Callable[[Sequence[Item]], list[Result | BaseException]]
    ) -> None:
        self._write_many = write_many
        self._queue: queue.SimpleQueue[list[_Job[Item, Result]] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._gathered: dict[asyncio.AbstractEventLoop, list[_Job[Item, Result]]] = {}

    async def write(self, item: Item) -> Result:
        """item written by the writer thread; its result, once written."""
        self._start()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Result] = loop.create_future()
        job = _Job(item, loop, future)
        with self._lock:
            gathered = self._gathered.get(loop)
            if gathered is None:
                gathered = self._gathered[loop] = []
                loop.call_soon(self._hand_over, loop)  # once the requests ready now have run
            gathered.append(job)
        return await future

    def _hand_over(self, loop: asyncio.AbstractEventLoop) -> None:
        """The jobs gathered in this turn of loop, to the thread."""
        with self._lock:
            gathered = self._gathered.pop(loop)
        self._queue.put(gathered)

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
            first = self._queue.get()
            if first is None:
                return
            jobs = list(first)
            while len(jobs) < MAX_BATCH:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._queue.put(None)  # stop after this batch
                    break
                jobs += more
            for start in range(0, len(jobs), MAX_BATCH):
                self._write(jobs[start : start + MAX_BATCH])

    def _write(self, jobs: list[_Job[Item, Result]]) -> None:
        try:
            outcomes = self._write_many([job.item for job in jobs])
        except BaseException as error:  # write_many reports per item; this is a bug
            outcomes = [error] * len(jobs)
        for job, outcome in zip(jobs, outcomes, strict=True):
            job.loop.call_soon_threadsafe(_resolve, job.future, outcome)

    def close(self) -> None:
        """Stop the thread once the answers queued so far are written."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            thread.join()


__all__ = ["MAX_BATCH", "RecordWriter"]
