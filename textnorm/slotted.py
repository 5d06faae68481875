"""A plain class with a frozen dataclass's slots, for making many instances cheaply.

A frozen dataclass's `__init__` sets each field through `object.__setattr__`, by name: several
times the cost of ordinary attribute stores. A hot path that makes many instances fills an
instance of `slot_twin(cls)` (called with no arguments: half the cost of `object.__new__`) and
then assigns `cls` as its `__class__`, which Python allows between classes of the same slot
layout. Equality, hash, repr and immutability stay the dataclass's own: the object is an
instance of it, nothing else. Used by `extractor.models` (`Citation`, `Span`, `Quote`);
`filler(cls)` is the other way, which `legaldb.index` and `verifier.models` use: a subclass of
the dataclass adding no slot, which spares Python the comparison of slot names at each change of
class.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any


def slot_twin(cls: type) -> Any:
    """A class holding the dataclass cls's fields as slots, nothing else (cls's layout)."""
    return type(f"_{cls.__name__}Slots", (), {"__slots__": tuple(f.name for f in fields(cls))})


def filler(cls: type) -> Any:
    """A subclass of the frozen slots dataclass cls, for making its instances cheaply: one is
    called with no arguments, filled by ordinary attribute stores (its __setattr__ is
    object's, not the dataclass's frozen one, which a store would call) and given cls as its
    __class__. It adds no slot, so the two layouts are one and Python checks the assignment
    in a few comparisons (a twin class of the same slots, `slot_twin`, has its slot names
    compared at every assignment). What is made is an instance of cls, nothing else:
    equality, hash, repr and immutability are cls's own."""
    return type(
        f"_{cls.__name__}Filler",
        (cls,),
        {
            "__slots__": (),
            "__init__": object.__init__,
            "__setattr__": object.__setattr__,
            "__delattr__": object.__delattr__,
        },
    )
