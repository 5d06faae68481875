"""The collector in a process that keeps the statute index: the index frozen, collected seldom."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from legaldb.collector import YOUNG_THRESHOLD, hold_collector, release_collector, tune_collector


@pytest.fixture
def restored_collector() -> Iterator[None]:
    """The process's thresholds and frozen objects as they were before the test."""
    thresholds = gc.get_threshold()
    was_frozen = gc.get_freeze_count()
    yield
    gc.set_threshold(*thresholds)
    if not was_frozen:
        gc.unfreeze()


def test_what_is_alive_is_frozen_and_young_collections_are_rarer(restored_collector: None) -> None:
    """Objects alive when tuned are never walked again; the first threshold is raised, the
    others kept; cyclic garbage made afterwards is still collected."""
    _, middle, oldest = gc.get_threshold()
    kept = [[index] for index in range(1_000)]
    tune_collector()
    assert gc.get_freeze_count() >= len(kept)
    assert gc.get_threshold() == (YOUNG_THRESHOLD, middle, oldest)
    cycle: list[object] = []
    cycle.append(cycle)
    del cycle
    assert gc.collect() >= 1


@pytest.mark.parametrize("ends_with", ["tune_collector", "release_collector"])
def test_a_held_collector_is_on_again_once_tuned_or_released(
    restored_collector: None, ends_with: str
) -> None:
    """hold_collector turns the collector off; tune_collector or release_collector turn it on
    again, what was made meanwhile frozen and the first threshold raised; a second release
    does nothing."""
    assert gc.isenabled()
    hold_collector()
    try:
        assert not gc.isenabled()
        made = [[index] for index in range(1_000)]
        frozen = gc.get_freeze_count()
        {"tune_collector": tune_collector, "release_collector": release_collector}[ends_with]()
        assert gc.isenabled()
        assert gc.get_freeze_count() >= frozen + len(made)
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
        gc.disable()
        release_collector()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_collector_off_for_another_reason_stays_off(restored_collector: None) -> None:
    """Held while already off, the collector is not turned on by tune_collector or release."""
    gc.disable()
    try:
        hold_collector()
        release_collector()
        tune_collector()
        assert not gc.isenabled()
    finally:
        gc.enable()
