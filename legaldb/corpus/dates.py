"""Chinese calendar dates as statutes write them: 2021年8月20日, 二〇〇三年二月一日, ２０１３年１月１日."""

from __future__ import annotations

import re
from datetime import date

from textnorm import parse_number

_DIGITS = "0-9０-９〇零○一二三四五六七八九"
DATE_RE = re.compile(
    rf"([{_DIGITS}]{{4}})\s*年\s*([{_DIGITS}十]{{1,3}})\s*月\s*([{_DIGITS}十]{{1,3}})\s*日"
)
FILE_DATE_RE = re.compile(r"\((\d{4})-(\d{2})-(\d{2})\)\.md$")


def make_date(year: str, month: str, day: str) -> date | None:
    """The date of three numeral strings, or None when they are not a real calendar date."""
    parts = (parse_number(year), parse_number(month), parse_number(day))
    if None in parts:
        return None
    try:
        return date(*parts)  # type: ignore[arg-type]
    except ValueError:
        return None


def parse_date(text: str) -> date | None:
    """The first well-formed date in text, or None."""
    for match in DATE_RE.finditer(text):
        found = make_date(*match.groups())
        if found:
            return found
    return None


def file_name_date(path: str) -> date | None:
    """The date in a corpus file name: 公司法(2023-12-29).md -> 2023-12-29."""
    match = FILE_DATE_RE.search(path)
    return make_date(*match.groups()) if match else None


def iso_date(text: str | None) -> date | None:
    """A metadata date (2021-01-01, possibly with a time) or None."""
    if not text:
        return None
    try:
        return date.fromisoformat(str(text)[:10])
    except ValueError:
        return None
