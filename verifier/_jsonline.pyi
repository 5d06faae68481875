from collections.abc import Callable
from typing import Any

class Writer:
    def __init__(
        self,
        *,
        encode: Callable[[Any], str],
        kept_limit: int,
        facts_writers: tuple[Callable[[Any], str], Callable[[Any], str]],
        support_writer: Callable[[Any], str],
        status_memo: dict[tuple[str, str], str],
        status_writer: Callable[[Any], str],
        quote_check_writer: Callable[[Any], str],
        conflicts_writer: Callable[[Any], str],
        summary_writer: Callable[[Any], str],
    ) -> None: ...
    def line(self, item_id: Any, result: Any, with_text: bool, /) -> str | None: ...
    def line_utf8(self, item_id: Any, result: Any, with_text: bool, /) -> bytes | None: ...
    def kept_count(self) -> tuple[int, int, int, int, int]: ...
