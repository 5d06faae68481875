"""The collector in a process that keeps the statute index: the index frozen, collected seldom."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from legaldb.collector import YOUNG_THRESHOLD, tune_collector


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
