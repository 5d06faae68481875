"""Quantities in Chinese legal text, and the numbers an answer states that its article contradicts.

`find_quantities` reads amounts (五百万元, 1.5万元), multiples (二倍, 双倍), durations (十二个月,
30日内, 二十四小时), ages (十四周岁), ratios (百分之五十, 50%, 三分之二) and counts (三人以上, 五名),
Chinese or Arabic, with 万/亿, through `textnorm.cn_to_int`. Dates (2023年8月1日), ordinals and
labels (第八十二条, 第三人) and list markers carry no unit and are never read as quantities.

`number_conflicts` is conservative: a quantity of the answer conflicts only when the article
states quantities of the same kind and unit family, none equal to it, and (for a bare value
without 以上/以下/不满 …) none of the article's bounds or ranges admits it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from textnorm import NumeralError, cn_to_int
from textnorm.kept import kept_pattern
from verifier.models import NumberConflict, Quantity, QuantityKind, new_quantity

try:  # compiled (verifier/_support_scan.c, built by setup.py where it can be)
    from verifier import _support_scan
except ImportError:  # pragma: no cover - built wherever a compiler is
    _support_scan = None  # type: ignore[assignment]

_CN = "零〇一二两三四五六七八九十百千万亿壹贰叁肆伍陆柒捌玖拾佰仟"
_NUM = rf"(?:\d+(?:,\d{{3}})*(?:\.\d+)?[十百千万亿]*|[{_CN}]+)"

# Bound words, written before the number (已满十六周岁) or after it (三年以上).
_LOWER = frozenset(
    {"以上", "已满", "年满", "满", "超过", "不少于", "不低于", "高于", "达到", "至少", "最低"}
)
_UPPER = frozenset(
    {"以下", "以内", "之内", "内", "不超过", "不多于", "不高于", "未满", "不满", "不足", "低于"}
    | {"最多", "最高"}
)
_SUFFIX_BOUNDS = frozenset({"以上", "以下", "以内", "之内", "内"})
# Longest first, then in code point order: the same pattern text in every process (by length
# alone, ties came in the set's order, which the string hash seed changes, so the program
# `kept_pattern` keeps under the pattern's text was missed, compiled and kept again by nearly
# every process). Words of one length cannot both match at one place: the order of ties
# changes no match.
_PREFIX_BOUNDS = "|".join(sorted((_LOWER | _UPPER) - _SUFFIX_BOUNDS, key=lambda w: (-len(w), w)))

# Every character a quantity can start with: a numeral, 双, 半, or a bound word written before.
_STARTS = "".join(sorted({word[0] for word in (_LOWER | _UPPER) - _SUFFIX_BOUNDS}))
_OPENERS = f"{_CN}双半{_STARTS}"  # and the decimal digits (\d)
_PREFIX_WORDS = tuple(_PREFIX_BOUNDS.split("|"))
# What follows the number of every match but 双倍 and 半年 (after white space): 分之, a percent
# or per mille sign, or the first character of a unit. A numeral whose run (of digits, `_CN`
# numerals, commas and points) ends where none of them follows (第一百二十条, 统一, 一方) opens
# no match: the compiled scan does not ask the pattern there. 万 and 亿 follow a number only
# after white space (五 万元); otherwise they are in its run, which goes on to the 元.
_FOLLOWERS = "分%％‰多万亿元倍周岁个工小星月日天年人名位次户家件票"

# One pass over the text; the alternatives are tried in this order at each position. The
# lookahead only turns away, cheaply, the positions where none of them can start (most of a
# statute's characters), and so changes no match.
_QUANTITY = kept_pattern(
    rf"""
    (?=[\d{_OPENERS}])
    (?P<pre>{_PREFIX_BOUNDS})?
    (?:
        (?P<den>{_NUM})分之(?P<numer>{_NUM})                       # 三分之二, 百分之五十
      | (?P<pct>{_NUM})\s*(?P<pct_unit>[%％‰])                     # 50%, 5‰
      | (?P<double>双倍)
      | (?P<half>半)(?P<half_unit>个月|年)                          # 半年, 半个月
      | (?P<num>{_NUM})\s*
        (?P<unit>
            多?(?:万|亿)?元                                          # amounts
          | 倍                                                      # multiples
          | 周岁|岁                                                 # ages
          | 个?工作日|个?小时|个?星期|个月|日|天|周(?!岁)|年           # durations
          | 人(?!民|有限|公司)|名(?![义称誉])|位|次(?!性)|户|家(?!庭|属)|件|票  # counts
        )
    )
    (?P<post>以上|以下|以内|之内|内(?!容))?
    """,
    re.VERBOSE,
)

_QUANTITY_MATCH = _QUANTITY.match
_ARABIC = kept_pattern(r"(\d+(?:\.\d+)?)([十百千万亿]*)")
_MONTH_FOLLOWS = kept_pattern(rf"{_NUM}月")  # after 2023年: a date
# The low end of a range written without its unit, before the high end: 三至五年.
_RANGE_LOW = kept_pattern(rf"(?<!第)({_NUM})\s*(?:至|到|-|－|~|～|—)\s*$")

_DAYS = {"小时": 1 / 24, "日": 1.0, "天": 1.0, "工作日": 1.0, "周": 7.0, "星期": 7.0}
_DAYS |= {"个月": 365 / 12, "月": 365 / 12, "年": 365.0}
_PERSONS = {"人", "名", "位"}
# Durations are compared within 2% (一年 = 十二个月 = 365 days, 一个月 = 三十日); other kinds exactly.
DURATION_TOLERANCE = 0.02
_RANGE_JOINERS = {"至", "到", "-", "－", "~", "～", "—"}


@dataclass(frozen=True, slots=True)
class _Interval:
    low: float | None
    high: float | None

    def admits(self, value: float) -> bool:
        above = self.low is None or value >= self.low
        below = self.high is None or value <= self.high
        return above and below


@lru_cache(maxsize=4096)
def _read_number(text: str) -> float | None:
    """A numeral as a float: Arabic (with , and decimals, then 万/亿 …) or Chinese (memoised:
    answers and articles use the same few numerals)."""
    text = text.replace(",", "")
    arabic = _ARABIC.fullmatch(text)
    if arabic:
        value = float(arabic.group(1))
        for unit in arabic.group(2):
            value *= {"十": 10, "百": 100, "千": 1000, "万": 10_000, "亿": 100_000_000}[unit]
        return value
    try:
        return float(cn_to_int(text))
    except NumeralError:
        return None


def _is_year_numeral(text: str, value: float) -> bool:
    """A calendar year: four digits, or a digit-by-digit Chinese numeral (二〇二三)."""
    if value >= 1000:
        return True
    return len(text) >= 3 and not any(unit in text for unit in "十百千万亿拾佰仟")


def _unit_family(kind: str, unit: str) -> str:
    """Quantities are compared only within one family: 工作日 apart from calendar days, counts
    per unit (people: 人/名/位)."""
    if kind == "duration":
        return "workday" if "工作日" in unit else "calendar"
    if kind == "count":
        return "person" if unit in _PERSONS else unit
    return kind


def _classify(match: re.Match[str], text: str) -> tuple[QuantityKind, float, str] | None:
    """(kind, value in base units, unit) of a match, or None when it is no quantity."""
    if match.group("den"):
        den, numer = _read_number(match.group("den")), _read_number(match.group("numer"))
        if not den or numer is None:
            return None
        return "ratio", numer / den, "分之"
    if match.group("pct"):
        value = _read_number(match.group("pct"))
        scale = 1000 if match.group("pct_unit") == "‰" else 100
        return None if value is None else ("ratio", value / scale, match.group("pct_unit"))
    if match.group("double"):
        return "multiple", 2.0, "倍"
    if match.group("half"):
        unit = match.group("half_unit")
        return "duration", _DAYS[unit] / 2, unit
    numeral, unit = match.group("num"), match.group("unit")
    value = _read_number(numeral)
    if value is None:
        return None
    if unit.endswith("元"):
        scale = 10_000 if "万" in unit else 100_000_000 if "亿" in unit else 1
        return "amount", value * scale, unit
    if unit == "倍":
        return "multiple", value, unit
    if unit in ("周岁", "岁"):
        return "age", value, unit
    base = unit.removeprefix("个")
    if base in _DAYS:
        if base == "年" and (
            _is_year_numeral(numeral, value) or _MONTH_FOLLOWS.match(text, match.end())
        ):
            return None  # a date: 2023年, 二〇二三年, 2023年8月
        if base == "日" and match.start() > 0 and text[match.start() - 1] in "月号":
            return None  # a date: 8月1日
        return "duration", value * _DAYS[base], unit
    if numeral == "一":
        return None  # 一名下岗职工, 一家医院: an article in the grammatical sense, not a count
    return "count", value, unit


def find_quantities(text: str) -> list[Quantity]:
    """Every quantity stated in text, in order; 三至五年 gives 三年 and 五年."""
    return list(_quantities(text))


@lru_cache(maxsize=16384)
def _quantities(text: str) -> tuple[Quantity, ...]:
    """find_quantities, memoised: article texts recur across answers, and one claim sentence
    (法律依据：第119条、第120条 …) is the claim of every citation it lists."""
    found: list[Quantity] = []
    for match in _matches(text):
        if match.start() > 0 and text[match.start() - 1] == "第":
            continue  # an ordinal or a label: 第三人, 第八十二条
        classified = _classify(match, text)
        if classified is None:
            continue
        kind, value, unit = classified
        bound = match.group("pre") or match.group("post") or ""
        quantity = new_quantity(kind, value, unit, match.group(), match.start(), match.end(), bound)
        low = _bare_range_low(text, quantity)
        found.extend([low, quantity] if low else [quantity])
    return tuple(found)


def _matches(text: str) -> Iterable[re.Match[str]]:
    """`_QUANTITY.finditer(text)`; compiled where verifier/_support_scan.c is built, the pattern
    asked only where a quantity can start, not at every character: at a numeral (a decimal
    digit, `_CN`), 双 or 半, or at a bound word written before (`_PREFIX_BOUNDS`) followed by
    one (every alternative after the optional bound word opens with one), but not inside a
    run of digits or of `_CN` numerals whose place before opened none (`\\d+…` and `[_CN]+`
    read from there whatever they read from here; no bound word opens with a numeral), nor
    where the numeral's run reaches none of `_FOLLOWERS`."""
    if _support_scan is None:
        return _QUANTITY.finditer(text)
    return _support_scan.quantity_matches(
        _QUANTITY_MATCH, text, _CN, "双半", _PREFIX_WORDS, _FOLLOWERS
    )


def _same_value(kind: str, first: float, second: float) -> bool:
    tolerance = DURATION_TOLERANCE if kind == "duration" else 1e-9
    return abs(first - second) <= tolerance * max(abs(first), abs(second))


def _intervals(quantities: tuple[Quantity, ...], text: str) -> list[tuple[str, _Interval]]:
    """(family, interval) for every range (一千元以上五千元以下, 三至五年) and lone bound (十万元以下)."""
    intervals = []
    paired: set[int] = set()
    for index in range(len(quantities) - 1):
        first, second = quantities[index], quantities[index + 1]
        family = _unit_family(first.kind, first.unit)
        if _unit_family(second.kind, second.unit) != family:
            continue
        between = text[first.end : second.start].strip()
        bounded = between == "" and first.bound in _LOWER and second.bound in _UPPER
        if between in _RANGE_JOINERS or bounded:
            low, high = sorted((first.value, second.value))
            intervals.append((family, _Interval(low, high)))
            paired |= {index, index + 1}
    for index, quantity in enumerate(quantities):
        if index in paired:
            continue
        family = _unit_family(quantity.kind, quantity.unit)
        if quantity.bound in _LOWER:
            intervals.append((family, _Interval(quantity.value, None)))
        elif quantity.bound in _UPPER:
            intervals.append((family, _Interval(None, quantity.value)))
    return intervals


def _bare_range_low(text: str, high: Quantity) -> Quantity | None:
    """The unit-less low end of a range before high (三至五年 -> 三年), read in high's unit."""
    if high.kind == "ratio" or high.bound or high.surface.startswith(("双", "半")):
        return None
    joiner = high.start
    while joiner > 0 and text[joiner - 1].isspace():  # what \s matches
        joiner -= 1
    if joiner == 0 or text[joiner - 1] not in _RANGE_JOINERS:
        return None  # most quantities: no range joiner before them, so no search back
    before = _RANGE_LOW.search(text, 0, high.start)
    value = _read_number(before.group(1)) if before else None
    if before is None or value is None:
        return None
    return Quantity(
        high.kind,
        value * _unit_scale(high),
        high.unit,
        before.group(),
        before.start(),
        before.end(),
    )


def _unit_scale(quantity: Quantity) -> float:
    """What one of the quantity's written unit is worth in base units (amounts: after 万/亿)."""
    if quantity.kind == "duration":
        return _DAYS[quantity.unit.removeprefix("个")]
    if quantity.kind == "amount":
        if "万元" in quantity.surface:
            return 10_000
        return 100_000_000 if "亿元" in quantity.surface else 1
    return 1.0


@lru_cache(maxsize=16384)
def _article_quantities(
    article_text: str,
) -> tuple[tuple[Quantity, ...], tuple[tuple[str, _Interval], ...]]:
    """The quantities of an article and its ranges and bounds, memoised (texts never change)."""
    quantities = _quantities(article_text)
    return quantities, tuple(_intervals(quantities, article_text))


def number_conflicts(claim_text: str, article_text: str) -> list[NumberConflict]:
    """Quantities of the claim that the article contradicts (see the module docstring)."""
    article, intervals = _article_quantities(article_text)
    if not article:
        return []  # nothing to contradict: the claim is not read (most articles state no number)
    conflicts: dict[tuple[str, float], NumberConflict] = {}
    for claim in _quantities(claim_text):
        family = _unit_family(claim.kind, claim.unit)
        stated = [q for q in article if _unit_family(q.kind, q.unit) == family]
        if not stated or any(_same_value(claim.kind, claim.value, q.value) for q in stated):
            continue
        admitted = any(f == family and i.admits(claim.value) for f, i in intervals)
        if claim.bound == "" and admitted:
            continue
        key = (claim.kind, claim.value)
        if key not in conflicts:
            conflicts[key] = NumberConflict(
                kind=claim.kind,
                claim_value=claim.value,
                article_values=tuple(dict.fromkeys(q.value for q in stated)),
                claim_surface=claim.surface,
                article_surfaces=tuple(dict.fromkeys(q.surface for q in stated)),
            )
    return list(conflicts.values())
