"""Making many instances of a frozen slots dataclass cheaply.

A frozen dataclass's `__init__` sets each field through `object.__setattr__`, by name: several
times the cost of ordinary attribute stores. A hot path that makes many instances fills an
instance of `filler(cls)` by ordinary stores and then assigns `cls` as its `__class__`, which
Python allows between classes of the same slot layout. Equality, hash, repr and immutability
stay the dataclass's own: the object is an instance of it, nothing else. Used by
`extractor.models`, `legaldb.index` and `verifier.models`.
"""

from __future__ import annotations

from typing import Any


def filler(cls: type) -> Any:
    """A subclass of the frozen slots dataclass cls, for making its instances cheaply: one is
    called with no arguments, filled by ordinary attribute stores (its __setattr__ is
    object's, not the dataclass's frozen one, which a store would call) and given cls as its
    __class__. It adds no slot, so the two layouts are one and Python checks the assignment
    in a few comparisons (a separate class of the same slots would have its slot names
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
