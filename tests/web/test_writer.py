"""The writer thread (web.writer.RecordWriter): what it writes together, in which order."""

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
