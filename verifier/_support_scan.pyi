"""verifier/_support_scan.c: the support verdicts' content bigrams and the quantity scan."""

import re
from collections.abc import Callable
from typing import Any

def content_bigrams(text: str, phrases: tuple[str, ...], /) -> frozenset[str]: ...
def quantity_matches(
    match: Callable[[str, int], re.Match[str] | None],
    text: str,
    numerals: str,
    openers: str,
    prefixes: tuple[str, ...],
    followers: str = ...,
    /,
) -> list[re.Match[str]]: ...
def top_other(shares: dict[Any, float], cited: object, share: float | None, /) -> float | None: ...
