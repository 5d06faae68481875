"""A plain class with a frozen dataclass's slots, for making many instances cheaply.

A frozen dataclass's `__init__` sets each field through `object.__setattr__`, by name: several
times the cost of ordinary attribute stores. A hot path that makes many instances fills an
instance of `slot_twin(cls)` (called with no arguments: half the cost of `object.__new__`) and
then assigns `cls` as its `__class__`, which Python allows between classes of the same slot
layout. Equality, hash, repr and immutability stay the dataclass's own: the object is an
instance of it, nothing else. Used by `extractor.models` (`Citation`, `Span`, `Quote`);
`legaldb.index` fills a subclass of the dataclass instead (its `_filler`), which spares Python
the comparison of slot names at each change of class.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any


def slot_twin(cls: type) -> Any:
    """A class holding the dataclass cls's fields as slots, nothing else (cls's layout)."""
    return type(f"_{cls.__name__}Slots", (), {"__slots__": tuple(f.name for f in fields(cls))})
