"""Input handling shared by the CLIs that take answers: dates, files, JSON lines.

Every error is an `InputError` naming what is wrong (the date, the file, the line and field);
the CLIs turn it into exit code 2.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

from verifier.errors import InputError


def parse_as_of(value: object, default: date) -> date:
    """YYYY-MM-DD -> date (None: default), with an error naming the bad value."""
    if value is None:
        return default
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        raise InputError(f"as_of: not a valid date (YYYY-MM-DD): {value!r}") from None


def as_of_or_today(value: object, today: Callable[[], date]) -> date:
    """parse_as_of(value, today()), today() asked only when value is None: a date given
    (`--as-of`) needs neither the time zone's module nor its file."""
    return today() if value is None else parse_as_of(value, date.min)


def read_input(path: str) -> str:
    """The text of a UTF-8 file, or of standard input for -."""
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None


def json_object(line: str, where: str) -> dict[str, Any]:
    """The JSON object one line holds; InputError naming `where` when it holds none."""
    try:
        item = json.loads(line)
    except json.JSONDecodeError as error:
        raise InputError(f"{where}: not JSON ({error.msg})") from None
    if not isinstance(item, dict):
        raise InputError(f"{where}: not a JSON object")
    return item


def json_objects(
    lines: Iterable[str], where: str = "line "
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) per non-blank line; InputError naming `{where}{number}` for a line
    that is not a JSON object."""
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield number, json_object(line, f"{where}{number}")


def jsonl_item(number: int, line: str) -> tuple[dict[str, Any], str]:
    """(object, answer) of the non-blank line `number`, {"answer" (or "text"), …}."""
    item = json_object(line, f"line {number}")
    answer = item.get("answer", item.get("text"))
    if not isinstance(answer, str):
        raise InputError(f"line {number}: field 'answer' (or 'text') must be a string")
    question = item.get("question")
    if question is not None and not isinstance(question, str):
        raise InputError(f"line {number}: field 'question' must be a string")
    return item, answer
