from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from verifier.quotes import QuoteIndex

K = TypeVar("K")

def shortlist(index: QuoteIndex[Any], quote: str, keep: int, exponent: float) -> list[int]: ...
def coverage(index: QuoteIndex[K], codes: Iterable[int]) -> tuple[float, dict[K, float]]: ...
def best_run(
    similarity: Callable[..., float],
    quote: str,
    text: str,
    bounds: tuple[int, ...],
    floor: float,
    common: int,
    margin: float,
) -> tuple[float, int, int, int]: ...
def best_span(
    similarity: Callable[..., float],
    lcs: Callable[[str, str], int],
    quote: str,
    text: str,
    bounds: tuple[int, ...],
    floor: float,
    common: int,
    margin: float,
) -> tuple[float, int, int, int]: ...
def common_lengths(
    similarity: Callable[..., int], quote: str, texts: list[str]
) -> list[int] | None: ...
def best_spans(
    similarity: Callable[..., float],
    variants: tuple[tuple[str, str], ...],
    indices: list[int],
    texts: list[str],
    bounds: list[tuple[int, ...]],
    commons: list[list[int]],
    min_score: float,
    floor: float,
    margin: float,
) -> list[tuple[float, int, str, tuple[float, int, int, int]]]: ...
