"""SQLite written by several worker processes at once: private stores opened concurrently."""

from __future__ import annotations

import multiprocessing
import sys
import threading
from pathlib import Path

import pytest

from audit import MappingStore
from web.rounds import HELD_SWITCH_S, FileRoundStore

PROCESSES = 4
ROUNDS = 15


def _open_and_write(kind: str, path: str, barrier: object, results: object) -> None:
    barrier.wait()  # type: ignore[attr-defined]
    try:
        if kind == "rounds":
            FileRoundStore(path).forget("sess_k1_x")
        else:
            MappingStore(Path(path)).record_many([("subj_k1_x", "subject", "raw")])
        results.put("ok")  # type: ignore[attr-defined]
    except Exception as error:  # reported to the test
        results.put(repr(error))  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", ["rounds", "mapping"])
def test_workers_opening_a_new_store_at_once_all_succeed(tmp_path: Path, kind: str) -> None:
    """4 processes opening the same new store at the same instant: none is refused (a 503)."""
    context = multiprocessing.get_context("fork")
    failures: list[str] = []
    for round_number in range(ROUNDS):
        path = str(tmp_path / f"{kind}-{round_number}.sqlite3")
        barrier = context.Barrier(PROCESSES)
        results = context.Queue()
        processes = [
            context.Process(target=_open_and_write, args=(kind, path, barrier, results))
            for _ in range(PROCESSES)
        ]
        for process in processes:
            process.start()
        outcomes = [results.get(timeout=60) for _ in processes]
        for process in processes:
            process.join(timeout=60)
        failures += [outcome for outcome in outcomes if outcome != "ok"]
    assert failures == []


def test_the_switch_interval_is_short_only_while_a_writers_lock_is_held(tmp_path: Path) -> None:
    """Two stores' writers' locks held by two threads, released in the other order: the short
    interval while either is held, the process's own after both (never left short)."""
    before = sys.getswitchinterval()
    stores = [FileRoundStore(tmp_path / f"rounds-{n}.sqlite3") for n in range(2)]
    first_held, second_released = threading.Event(), threading.Event()
    seen: list[float] = []

    def hold_first() -> None:
        with stores[0]._writers.held():
            first_held.set()
            second_released.wait(timeout=30)
            seen.append(sys.getswitchinterval())

    thread = threading.Thread(target=hold_first)
    thread.start()
    first_held.wait(timeout=30)
    with stores[1]._writers.held():
        seen.append(sys.getswitchinterval())
    second_released.set()
    thread.join(timeout=30)
    assert seen == [pytest.approx(HELD_SWITCH_S)] * 2
    assert sys.getswitchinterval() == before
