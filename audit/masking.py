"""Masking of personal data in free text: phone numbers, 身份证号, e-mail addresses, bank cards.

Each kind is one rule that yields candidate spans; a checksum (身份证号 MOD 11-2, Luhn) or a
plausibility check (birth date, province) decides the ones that need it. Rules run in a fixed
order on a working copy of the text in which the spans already taken are blanked out, so a
later rule never sees part of an earlier match: e-mail first (13812345678@qq.com is an address),
then 身份证号 (an 18-digit id is not a card), bank card, mobile, landline.

A number is only masked when it stands on its own: not glued to ASCII letters or digits (a
credit code, a hash), not part of a decimal, not an amount (¥…, …元, …万, …%). The patterns have
no nested unbounded repetition and e-mail addresses are found from their '@', so the work is
linear in the length of the text. Names and postal addresses are not masked.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import date

from audit.models import MaskResult, PiiKind, PiiMatch
from textnorm import fold_width

Span = tuple[int, int]

_DIGIT_RE = re.compile(r"[0-9０-９]")
MIN_DIGITS = 7  # the shortest kind: a local landline number, 7 digits

# Stands in for characters already masked: neither digit nor letter, so it bounds later matches.
_BLANK = "\ufffc"

# A number stands alone: no letter or digit either side, no decimal point into a digit,
# no currency sign before it and no amount unit right after it.
_ALONE_BEFORE = r"(?<![0-9A-Za-z])(?<![0-9]\.)(?<![¥$￥])"
_ALONE_AFTER = r"(?![0-9A-Za-z])(?!\.[0-9])(?![元万亿%‰])"

_ID_RE = re.compile(
    _ALONE_BEFORE
    + r"(?:[0-9]{15}(?:[0-9]{2}[0-9Xx])?"
    + r"|[0-9]{6}(?P<sep>[- ])[0-9]{8}(?P=sep)[0-9]{3}[0-9Xx])"  # 110105 19491231 002X
    + _ALONE_AFTER
)
_CARD_RE = re.compile(
    _ALONE_BEFORE
    + r"(?:[0-9]{13,19}"  # unseparated
    + r"|[0-9]{4}(?P<sep>[- ])[0-9]{4}(?:(?P=sep)[0-9]{4}){1,2}(?:(?P=sep)[0-9]{1,4})?"  # 4-4-4…
    + r"|[0-9]{4}(?P<amex>[- ])[0-9]{6}(?P=amex)[0-9]{5})"  # 4-6-5
    + _ALONE_AFTER
)
_MOBILE_RE = re.compile(
    _ALONE_BEFORE
    + r"(?:(?:\+|00)?86[- ]?|\(\+?86\)[- ]?)?"  # +86, 0086, 86, (+86)
    + r"1[3-9][0-9](?:[- ]?[0-9]{4}){2}"
    + _ALONE_AFTER
)
_LOCAL_7_OR_8 = r"[2-9][0-9]{2,3}[- ]?[0-9]{4}"
_LOCAL_8 = r"[2-9][0-9]{3}[- ]?[0-9]{4}"
_LANDLINE_RE = re.compile(
    _ALONE_BEFORE
    + r"(?:"
    + rf"\(0(?:10|2[0-9])\)[- ]?{_LOCAL_8}"  # (010)…, (021)…: three-digit area codes
    + rf"|\(0[3-9][0-9]{{2}}\)[- ]?{_LOCAL_7_OR_8}"  # (0755)…
    + rf"|0(?:10|2[0-9])[- ]?{_LOCAL_8}"
    + rf"|0[3-9][0-9]{{2}}[- ]?{_LOCAL_7_OR_8}"
    + rf"|(?:\+|00)86[- ]?(?:10|2[0-9])[- ]?{_LOCAL_8}"  # +86 10 …: the trunk 0 dropped
    + rf"|(?:\+|00)86[- ]?[3-9][0-9]{{2}}[- ]?{_LOCAL_7_OR_8}"
    + r")"
    + _ALONE_AFTER
)
_MOBILE_WITH_COUNTRY_CODE = re.compile(r"(?:00)?861[3-9][0-9]{9}")
_YEAR_LIST_RE = re.compile(r"(?:19|20)[0-9]{2}(?:[- ](?:19|20)[0-9]{2})+")  # 2018-2019-2020-2021

# The provinces' codes (GB/T 2260), the first two digits of every 身份证号.
_PROVINCES = frozenset(
    {11, 12, 13, 14, 15, 21, 22, 23, 31, 32, 33, 34, 35, 36, 37, 41, 42, 43, 44, 45, 46}
    | {50, 51, 52, 53, 54, 61, 62, 63, 64, 65, 71, 81, 82}
)
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK_CHARS = "10X98765432"
_EMAIL_LOCAL_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%+-"
)
_EMAIL_DOMAIN_RE = re.compile(r"[A-Za-z0-9.-]+")
_LETTERS_PREFIX_RE = re.compile(r"[A-Za-z]+")


def id_check_char(first_17: str) -> str:
    """The ISO 7064 MOD 11-2 check character of a 身份证号's first 17 digits."""
    total = sum(int(digit) * weight for digit, weight in zip(first_17, _ID_WEIGHTS, strict=True))
    return _ID_CHECK_CHARS[total % 11]


def is_resident_id(candidate: str) -> bool:
    """True for a plausible 身份证号: 18 characters with a valid check character, or 15 digits
    (the pre-1999 form, no check digit); both need a real province and a real birth date."""
    if len(candidate) not in (15, 18) or int(candidate[:2]) not in _PROVINCES:
        return False
    if len(candidate) == 15:
        year, month, day = 1900 + int(candidate[6:8]), int(candidate[8:10]), int(candidate[10:12])
    else:
        if candidate[17].upper() != id_check_char(candidate[:17]):
            return False
        year, month, day = int(candidate[6:10]), int(candidate[10:12]), int(candidate[12:14])
    if not 1900 <= year <= 2099:
        return False
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def luhn_valid(digits: str) -> bool:
    """True when a string of digits passes the Luhn (mod 10) check."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _regex_rule(
    pattern: re.Pattern[str], accept: Callable[[str], bool] | None = None
) -> Callable[[str], Iterator[Span]]:
    def find(text: str) -> Iterator[Span]:
        for match in pattern.finditer(text):
            if accept is None or accept(match.group()):
                yield match.span()

    return find


def _digits_of(candidate: str) -> str:
    return candidate.replace(" ", "").replace("-", "")


def _is_bank_card(candidate: str) -> bool:
    digits = _digits_of(candidate)
    return (
        13 <= len(digits) <= 19
        and luhn_valid(digits)
        and not _MOBILE_WITH_COUNTRY_CODE.fullmatch(digits)
        and not _YEAR_LIST_RE.fullmatch(candidate)
    )


def _email_domain_end(text: str, start: int) -> int | None:
    """End of the domain that starts at text[start], or None when there is no valid one."""
    run = _EMAIL_DOMAIN_RE.match(text, start)
    if run is None:
        return None
    labels = run.group().split(".")
    if labels[0].startswith("-"):
        return None
    # Labels are non-empty: the domain ends before the first '..'.
    usable = next((index for index, label in enumerate(labels) if not label), len(labels))
    for count in range(min(len(labels), usable + 1), 1, -1):
        # The top-level label is letters only; a digit glued to it ends the address.
        top = _LETTERS_PREFIX_RE.match(labels[count - 1])
        if top is not None and len(top.group()) >= 2:
            return start + sum(len(label) + 1 for label in labels[: count - 1]) + len(top.group())
    return None


def _find_emails(text: str) -> Iterator[Span]:
    """Spans of e-mail addresses, found from each '@': linear, the local parts being disjoint."""
    taken_until = 0
    at = text.find("@")
    while at != -1:
        start = at
        while start > taken_until and text[start - 1] in _EMAIL_LOCAL_CHARS:
            start -= 1
        while start < at and text[start] == ".":
            start += 1
        end = _email_domain_end(text, at + 1) if start < at else None
        if end is not None:
            yield start, end
            taken_until = end
        at = text.find("@", max(at + 1, taken_until))


_RULES: tuple[tuple[PiiKind, Callable[[str], Iterator[Span]]], ...] = (
    (PiiKind.EMAIL, _find_emails),
    (PiiKind.ID_CARD, _regex_rule(_ID_RE, lambda found: is_resident_id(_digits_of(found)))),
    (PiiKind.BANK_CARD, _regex_rule(_CARD_RE, _is_bank_card)),
    (PiiKind.MOBILE, _regex_rule(_MOBILE_RE)),
    (PiiKind.LANDLINE, _regex_rule(_LANDLINE_RE)),
)


def _blank_out(text: str, spans: list[Span]) -> str:
    pieces: list[str] = []
    position = 0
    for start, end in spans:
        pieces.append(text[position:start])
        pieces.append(_BLANK * (end - start))
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def may_hold_pii(text: str) -> bool:
    """False when no rule can match: each kind needs an @ (e-mail) or seven digits at least
    (a local landline number), ASCII or full-width. Most texts a gate records (facts, the
    standards' wording, law names) have neither, and skip the rules."""
    return "@" in text or "＠" in text or len(_DIGIT_RE.findall(text)) >= MIN_DIGITS


def find_pii(text: str) -> list[PiiMatch]:
    """Every piece of personal data in text, as non-overlapping spans in text order."""
    if not may_hold_pii(text):
        return []
    working = fold_width(text)  # ＋８６，１３８… to ASCII; one character for one
    found: list[PiiMatch] = []
    for kind, find in _RULES:
        spans = list(find(working))
        if spans:
            found.extend(PiiMatch(kind, start, end) for start, end in spans)
            working = _blank_out(working, spans)
    found.sort(key=lambda match: match.start)
    return found


def mask_pii(text: str) -> MaskResult:
    """text with each piece of personal data replaced by its typed placeholder ([手机号] …)."""
    matches = find_pii(text)
    if not matches:
        return MaskResult(text, {})
    pieces: list[str] = []
    position = 0
    for match in matches:
        pieces.append(text[position : match.start])
        pieces.append(match.kind.placeholder)
        position = match.end
    pieces.append(text[position:])
    counts = Counter(match.kind for match in matches)
    return MaskResult("".join(pieces), dict(counts))
