from collections.abc import Callable
from typing import TypeVar

def sentence_start(text: str, floor: int, end: int) -> int: ...
def claim_bounds(text: str, start: int, end: int) -> tuple[int, int]: ...
def lead(text: str, after: int) -> tuple[int, bool, str]: ...
def comment(
    text: str,
    start: int,
    end: int,
    words: tuple[str, ...],
    comma_words: tuple[str, ...],
    prompt_words: tuple[str, ...],
) -> tuple[int, int] | None: ...
def quote_span(
    text: str,
    after: int,
    limit: int,
    cited_at: int | None,
    word_lists: tuple[tuple[str, ...], ...],
) -> tuple[int, int] | None: ...

MAX_QUOTE: int
MAX_CLAIM_SIDE: int
COMMENT_REACH: int
OPEN_QUOTES: str
SENTENCE_ENDS: str
TRAILING: str
LIST_LINE_FIRST: str

_SpanType = TypeVar("_SpanType")

def quote(
    text: str,
    after: int,
    limit: int,
    cited_at: int | None,
    word_lists: tuple[tuple[str, ...], ...],
    make: Callable[[type[_SpanType], str, int, int], _SpanType],
    cls: type[_SpanType],
) -> _SpanType | None: ...
def claim(
    text: str,
    start: int,
    end: int,
    make: Callable[[type[_SpanType], str, int, int], _SpanType],
    cls: type[_SpanType],
) -> _SpanType: ...
