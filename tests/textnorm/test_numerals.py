"""The Chinese-numeral codec: table of real forms and round-trip properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import article_numbers
from textnorm import NumeralError, article_label, cn_to_int, int_to_cn, parse_number

CASES = [
    ("一", 1),
    ("十", 10),
    ("十五", 15),
    ("二十", 20),
    ("一百", 100),
    ("一百零一", 101),
    ("一百一十", 110),
    ("一百二十", 120),
    ("一千零六十二", 1062),
    ("一千二百六十", 1260),
    ("一千二百八十九", 1289),
    ("两百", 200),
    ("1062", 1062),
    ("１０６２", 1062),
    ("３万", 30000),
    ("五百万", 5_000_000),
    ("一亿二千万", 120_000_000),
    ("二〇二三", 2023),
    ("壹佰", 100),
]


@pytest.mark.parametrize(("text", "value"), CASES, ids=[c[0] for c in CASES])
def test_reads_real_forms(text: str, value: int) -> None:
    assert cn_to_int(text) == value


@pytest.mark.parametrize("text", ["", "条", "abc", "1.5", "第一"], ids=repr)
def test_rejects_non_numerals(text: str) -> None:
    with pytest.raises(NumeralError):
        cn_to_int(text)
    assert parse_number(text) is None


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1, "一"),
        (10, "十"),
        (15, "十五"),
        (110, "一百一十"),
        (1001, "一千零一"),
        (1062, "一千零六十二"),
    ],
)
def test_writes_official_form(value: int, text: str) -> None:
    assert int_to_cn(value) == text


@given(article_numbers)
def test_article_label_round_trip(number: int) -> None:
    """int -> 第…条 -> int is the identity for every article number 1..9999."""
    label = article_label(number)
    assert label.startswith("第") and label.endswith("条")
    assert cn_to_int(label[1:-1]) == number


@given(article_numbers)
def test_arabic_form_round_trip(number: int) -> None:
    """The Arabic form 第1062条 reads back to the same int."""
    assert cn_to_int(str(number)) == number


@given(st.integers(min_value=0, max_value=10**12))
def test_chinese_round_trip_large(number: int) -> None:
    """Amounts up to 一万亿 round-trip through the official form."""
    assert cn_to_int(int_to_cn(number)) == number
