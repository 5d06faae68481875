"""One least-recently-used memo per repository, for pure functions of a repository's texts."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar
from weakref import WeakKeyDictionary

Owner = TypeVar("Owner")
Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


def recall(
    memos: WeakKeyDictionary[Owner, OrderedDict[Key, Value]],
    owner: Owner,
    key: Key,
    limit: int,
    compute: Callable[[], Value],
) -> Value:
    """compute() memoised under key in owner's memo, the least recently used dropped past limit."""
    memo = memos.get(owner)
    if memo is None:
        memo = memos[owner] = OrderedDict()
    found = memo.get(key)
    if found is None:
        found = compute()
        memo[key] = found
        if len(memo) > limit:
            memo.popitem(last=False)
    else:
        memo.move_to_end(key)
    return found
