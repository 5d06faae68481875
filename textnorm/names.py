"""Normalisation of law names for lookup: width, brackets, spaces, the PRC prefix."""

from __future__ import annotations

import re
import unicodedata

PRC_PREFIX = "中华人民共和国"
_SPACES = re.compile(r"[\s\u3000\u200b\ufeff]+")
_TITLE_MARKS = str.maketrans(
    {"《": "", "》": "", "〈": "", "〉": "", "<": "", ">": "", "«": "", "»": ""}
)
_BRACKETS = str.maketrans({"(": "（", ")": "）"})


def to_halfwidth(text: str) -> str:
    """Full-width ASCII letters, digits and spaces to half-width; CJK punctuation is kept."""
    out = []
    for ch in text:
        code = ord(ch)
        if 0xFF01 <= code <= 0xFF5E and (ch.isalnum()):
            out.append(chr(code - 0xFEE0))
        elif code == 0x3000:
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def normalize_name(name: str) -> str:
    """The lookup key of a law name: NFKC-safe width, no title marks, no spaces, （） brackets."""
    name = unicodedata.normalize("NFC", name)
    name = to_halfwidth(name).translate(_TITLE_MARKS)
    name = _SPACES.sub("", name)
    return name.translate(_BRACKETS)


def strip_prc_prefix(name: str) -> str:
    """中华人民共和国公司法 -> 公司法 (other names unchanged)."""
    return name.removeprefix(PRC_PREFIX)
