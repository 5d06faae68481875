"""Input handling shared by the CLIs that take answers: dates, files, JSON lines.

Every error is an `InputError` naming what is wrong (the date, the file, the line and field);
the CLIs turn it into exit code 2.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
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


def json_objects(
    lines: Iterable[str], where: str = "line "
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) per non-blank line; InputError naming `{where}{number}` for a line
    that is not a JSON object."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(f"{where}{number}: not JSON ({error.msg})") from None
        if not isinstance(item, dict):
            raise InputError(f"{where}{number}: not a JSON object")
        yield number, item


def jsonl_items(lines: Iterable[str]) -> Iterator[tuple[int, dict[str, Any], str]]:
    """(line number, object, answer) per non-blank line {"answer" (or "text"), …}."""
    for number, item in json_objects(lines):
        answer = item.get("answer", item.get("text"))
        if not isinstance(answer, str):
            raise InputError(f"line {number}: field 'answer' (or 'text') must be a string")
        question = item.get("question")
        if question is not None and not isinstance(question, str):
            raise InputError(f"line {number}: field 'question' must be a string")
        yield number, item, answer
