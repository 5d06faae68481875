"""The cyclic garbage collector in a process that holds the statute index.

Once loaded, the index is a hundred thousand objects or more (laws, versions, their tuples and
dicts) that never become garbage, and lookups add their answers to it (a `Lookup`, and an
`ArticleInfo` the first time an article is asked for, kept in each law's memo). With CPython's
default thresholds (700, 10, 10) the collector walks the youngest objects every 700
allocations and all of them every 70,000: a first pass of 200,000 lookups over a million
articles ran six full collections over the index and the answers, 1.0–1.2 s of its 2.9 s.

`tune_collector()` freezes what is loaded (`gc.freeze`: the collector never walks it again,
and forked workers share it without writing to its pages) and raises the first threshold, so
the young generation is collected every YOUNG_THRESHOLD allocations and the old ones seldom.
Cyclic garbage still goes, a little later: a request's or an answer's cycles are a few hundred
objects. Called where a process loads the index to keep it (the CLI, the web service's
workers, the batch check's parent before it forks, the benchmarks).

`hold_collector()` turns the collector off for a command's start-up (`lexgate/cli.py`, run as
the command): its imports and the snapshot's load make hundreds of thousands of objects that
live as long as the process, so its young collections find nothing (29 M instructions of a
one-answer check's 704 M). `tune_collector()` after the load, or `release_collector()` where
a command loads no statutes, freezes them and turns it on again.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000
"""Allocations (less deallocations) of tracked objects between collections of the youngest
generation; CPython's default is 700. The middle and oldest thresholds stay 10."""


_held = False  # the collector was turned off by hold_collector and not yet on again


def tune_collector() -> None:
    """Freeze the objects alive now and collect the young generation less often (see above);
    the collector on again if hold_collector turned it off.

    No full collection first: right after a load there is no cyclic garbage to find (0
    unreachable objects measured on the national corpus), and it would cost 40 ms of start-up.
    """
    global _held
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, oldest)
    if _held:
        _held = False
        gc.enable()


def hold_collector() -> None:
    """Turn the collector off (when it is on) until tune_collector or release_collector: for a
    command's start-up, whose imports and statute load make hundreds of thousands of objects
    that live as long as the process, so that its young collections find nothing."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def release_collector() -> None:
    """tune_collector when hold_collector turned the collector off (what the start-up made
    frozen, never walked); nothing otherwise (a collector off for another reason stays off)."""
    if _held:
        tune_collector()
