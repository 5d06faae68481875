"""The gated answers' writer (web.writer.RecordWriter): what it assesses and writes together, in
which order."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

import pytest

from web.writer import MAX_BATCH, RecordWriter


class Batches:
    """A write_many that keeps each batch it is given; an item "bad" fails alone."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.threads: set[str] = set()

    def __call__(self, items: Sequence[str]) -> list[str | BaseException]:
        self.batches.append(list(items))
        self.threads.add(threading.current_thread().name)
        return [ValueError(item) if item == "bad" else item.upper() for item in items]


def test_answers_gated_in_one_turn_of_the_loop_are_written_together() -> None:
    """Writes started in one turn of the event loop reach write_many as one batch, in the
    order they were started; each caller gets its own result, or its own exception."""
    batches = Batches()
    writer: RecordWriter[str, str] = RecordWriter(batches)

    async def main() -> list[str | BaseException]:
        items = ["a", "b", "bad", "c"]
        return await asyncio.gather(*(writer.write(i) for i in items), return_exceptions=True)

    try:
        outcomes = asyncio.run(main())
    finally:
        writer.close()
    assert batches.batches == [["a", "b", "bad", "c"]]
    assert batches.threads == {"lexgate-record-writer"}
    assert outcomes[:2] == ["A", "B"] and outcomes[3] == "C"
    assert isinstance(outcomes[2], ValueError)


def test_a_lone_write_is_written_at_once() -> None:
    """A write with nothing else ready is written on its own (an idle server does not wait
    for company): two writes one after the other are two batches."""
    batches = Batches()
    writer: RecordWriter[str, str] = RecordWriter(batches)

    async def main() -> list[str]:
        first = await asyncio.wait_for(writer.write("x"), timeout=5)
        second = await asyncio.wait_for(writer.write("y"), timeout=5)
        return [first, second]

    try:
        assert asyncio.run(main()) == ["X", "Y"]
    finally:
        writer.close()
    assert batches.batches == [["x"], ["y"]]


@pytest.mark.parametrize("count", [MAX_BATCH + 1, 3 * MAX_BATCH], ids=["one-over", "three-full"])
def test_no_batch_holds_more_than_max_batch(count: int) -> None:
    """More writes than MAX_BATCH in one turn are written in batches of at most MAX_BATCH,
    all of them, in order."""
    batches = Batches()
    writer: RecordWriter[str, str] = RecordWriter(batches)
    items = [f"item-{n}" for n in range(count)]

    async def main() -> list[str]:
        return await asyncio.gather(*(writer.write(item) for item in items))

    try:
        outcomes = asyncio.run(main())
    finally:
        writer.close()
    assert outcomes == [item.upper() for item in items]
    assert all(len(batch) <= MAX_BATCH for batch in batches.batches)
    assert [item for batch in batches.batches for item in batch] == items


def test_assessments_run_on_the_loop_in_the_order_queued() -> None:
    """Each job's assessment runs on the event loop's thread, in the order the jobs were
    queued; one that raises is answered with its exception and not written, the others are
    written together."""
    batches = Batches()
    writer: RecordWriter[str, str] = RecordWriter(batches)
    order: list[tuple[str, str]] = []

    def assess(item: str) -> str:
        order.append((item, threading.current_thread().name))
        if item == "refused":
            raise LookupError(item)
        return item

    async def main() -> list[str | BaseException]:
        items = ["a", "refused", "b", "c"]
        jobs = (writer.assess_and_write(lambda item=item: assess(item)) for item in items)
        return await asyncio.gather(*jobs, return_exceptions=True)

    try:
        outcomes = asyncio.run(main())
    finally:
        writer.close()
    assert order == [(item, "MainThread") for item in ["a", "refused", "b", "c"]]
    assert outcomes[0] == "A" and outcomes[2:] == ["B", "C"]
    assert isinstance(outcomes[1], LookupError)
    assert batches.batches == [["a", "b", "c"]]


def test_the_loop_runs_between_turns_and_later_jobs_queue_behind() -> None:
    """A turn assesses for at most its budget (here: one job a turn); between turns the loop
    runs what became ready meanwhile, and a job queued then is assessed after every job queued
    before it."""
    batches = Batches()
    writer: RecordWriter[str, str] = RecordWriter(batches, budget_s=0.0)
    events: list[str] = []

    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        late: list[asyncio.Task[str]] = []

        def assess(item: str) -> str:
            events.append(f"assess {item}")
            if item == "a":  # ready while the turn runs: before the next turn
                loop.call_soon(events.append, "callback")
                late.append(loop.create_task(writer.assess_and_write(lambda: assess("late"))))
            return item

        first = [writer.assess_and_write(lambda item=item: assess(item)) for item in "abc"]
        outcomes = list(await asyncio.gather(*first))
        return [*outcomes, await late[0]]

    try:
        outcomes = asyncio.run(main())
    finally:
        writer.close()
    assert outcomes == ["A", "B", "C", "LATE"]
    assert events == ["assess a", "callback", "assess b", "assess c", "assess late"]
    assert [item for batch in batches.batches for item in batch] == ["a", "b", "c", "late"]
