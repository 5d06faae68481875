"""Chinese numerals <-> int, the one codec every package uses.

Handles the forms statute numbers take: 一千零六十二, 一百二十, 十五, 两百, 〇/零, 壹贰叁 (financial
forms), Arabic and full-width digits (1062, １０６２), and the mixed forms models write
(1千, 3万). `int_to_cn` writes the official form (一千零六十二, 十五, 一百一十).
"""

from __future__ import annotations

import re
from functools import lru_cache

from textnorm.kept import kept_pattern

DIGITS: dict[str, int] = {
    "零": 0,
    "〇": 0,
    "○": 0,
    "O": 0,
    "一": 1,
    "壹": 1,
    "幺": 1,
    "二": 2,
    "贰": 2,
    "两": 2,
    "貳": 2,
    "三": 3,
    "叁": 3,
    "參": 3,
    "四": 4,
    "肆": 4,
    "五": 5,
    "伍": 5,
    "六": 6,
    "陆": 6,
    "陸": 6,
    "七": 7,
    "柒": 7,
    "八": 8,
    "捌": 8,
    "九": 9,
    "玖": 9,
}
SMALL_UNITS: dict[str, int] = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
BIG_UNITS: dict[str, int] = {"万": 10_000, "萬": 10_000, "亿": 100_000_000, "億": 100_000_000}

CN_DIGITS = "零一二三四五六七八九"
FULLWIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")
NUMERAL_CHARS = "".join(DIGITS) + "".join(SMALL_UNITS) + "".join(BIG_UNITS)
ARABIC_RE = kept_pattern(r"[0-9０-９]+")


class NumeralError(ValueError):
    """The text is not a numeral this codec reads."""


def _small_section(text: str) -> int:
    """Value of a section below 万 (e.g. 一千零六十二, 十五, 3千)."""
    total = 0
    digit: int | None = None
    for ch in text:
        if ch in DIGITS:
            digit = DIGITS[ch]
        elif ch.isdigit():
            digit = int(ch)
        elif ch in SMALL_UNITS:
            total += (1 if digit is None else digit) * SMALL_UNITS[ch]
            digit = None
        else:
            raise NumeralError(f"not a Chinese numeral character: {ch!r} in {text!r}")
    return total + (digit or 0)


def cn_to_int(text: str) -> int:
    """Read a Chinese, Arabic, full-width or mixed numeral; raise NumeralError otherwise."""
    if not text:
        raise NumeralError("empty numeral")
    text = text.translate(FULLWIDTH_DIGITS)
    if text.isascii() and text.isdigit():
        return int(text)
    if all(ch in DIGITS for ch in text) and len(text) > 1:
        # Digit-by-digit forms such as 二〇二三 (years).
        return int("".join(str(DIGITS[ch]) for ch in text))
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        raise NumeralError(f"not an integer numeral: {text!r}")
    total = 0
    section = ""
    for ch in text:
        if ch in BIG_UNITS:
            unit = BIG_UNITS[ch]
            value = _small_section(section) if section else (0 if total else 1)
            total = (total + value) * unit if unit > 10_000 else total + value * unit
            section = ""
        else:
            section += ch
    if section:
        total += _small_section(section)
    return total


@lru_cache(maxsize=4096)  # article, paragraph and item numbers recur in every check and record
def int_to_cn(number: int) -> str:
    """Write a non-negative int in the official Chinese form (一千零六十二, 十五, 一百一十)."""
    if number < 0:
        raise NumeralError(f"negative numbers have no statute form: {number}")
    if number == 0:
        return "零"
    if number >= 100_000_000:
        high, low = divmod(number, 100_000_000)
        tail = "" if low == 0 else ("零" if low < 10_000_000 else "") + _below_yi(low, True)
        return int_to_cn(high) + "亿" + tail
    return _below_yi(number, False)


def _below_yi(number: int, inner: bool) -> str:
    if number >= 10_000:
        high, low = divmod(number, 10_000)
        tail = "" if low == 0 else ("零" if low < 1000 else "") + _below_wan(low, True)
        return _below_wan(high, inner) + "万" + tail
    return _below_wan(number, inner)


def _below_wan(number: int, inner: bool) -> str:
    out = []
    units = [(1000, "千"), (100, "百"), (10, "十")]
    pending_zero = False
    started = False
    for value, unit in units:
        digit, number = divmod(number, value)
        if digit:
            if pending_zero:
                out.append("零")
                pending_zero = False
            if not (unit == "十" and digit == 1 and not started and not inner):
                out.append(CN_DIGITS[digit])
            out.append(unit)
            started = True
        elif started:
            pending_zero = True
    if number:
        if pending_zero:
            out.append("零")
        out.append(CN_DIGITS[number])
    return "".join(out)


def article_label(number: int, suffix: str | None = None) -> str:
    """The official label of an article: 第一百二十条之一."""
    return f"第{int_to_cn(number)}条{suffix or ''}"


def parse_number(text: str) -> int | None:
    """Like cn_to_int, but None instead of an error (for scanning)."""
    try:
        return cn_to_int(text)
    except NumeralError:
        return None
