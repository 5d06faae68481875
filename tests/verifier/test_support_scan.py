"""The compiled scans of verifier/_support_scan.c give what their Python references give: the
content bigrams of `support._python_content_bigrams` (the same frozenset, in the same order)
and the quantity matches of `numbers._QUANTITY.finditer` (the same spans and groups)."""

from __future__ import annotations

import json
import re
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor import extract
from tests.conftest import SHARED_DIR
from tests.verifier.statute_texts import REAL_ARTICLES
from verifier import numbers, support
from verifier.textnorm_quote import normalize_for_compare

compiled = support._support_scan
needs_compiled = pytest.mark.skipif(compiled is None, reason="built without a C compiler")

# Characters where the scans decide: the stock phrases' and the quantities' openers, units and
# bound words, decimal digits of other scripts (٣, full-width ３, 𝟎) and digits that are not
# decimal (², ½, Ⅻ), characters sharing an opener's low ten bits (U+4E00 ^ 1024 …), astral.
_STOCK_CHARACTERS = sorted({c for phrase in support.STOCK_PHRASES for c in phrase})
_NUMBER_CHARACTERS = sorted(
    set(
        numbers._OPENERS
        + numbers._FOLLOWERS
        + "分之%％‰多倍元万亿周岁个工作月日天年小时星期人名位次户家件票以上下内满第至到-～"
        + "条款项方致"
    )
)
_DECIDING = st.sampled_from(
    _STOCK_CHARACTERS
    + _NUMBER_CHARACTERS
    + ["0", "5", "9", "٣", "３", "𝟎", "²", "½", "Ⅻ", ",", ".", " ", "\n", "的", "是", "a"]
    + [chr(ord("法") ^ 1024), chr(ord("不") + 1024), chr(ord("一") - 1024), "\U00020000"]
)
_PHRASES = st.sampled_from(
    [
        *support.STOCK_PHRASES,
        *numbers._PREFIX_WORDS,
        "三分之二",
        "百分之五十",
        "十二个月",
        "不超过十万元",
    ]
)
_TEXTS = st.lists(st.one_of(_DECIDING, _PHRASES, st.characters()), max_size=60).map("".join)


@cache
def _flzx_texts() -> list[str]:
    """Each flzx answer and each quote extracted from it, and the real articles."""
    path = SHARED_DIR / "eval" / "flzx_dev_answers.jsonl"
    texts = list(REAL_ARTICLES.values())
    for line in path.read_text("utf-8").splitlines():
        answer = json.loads(line)["answer"]
        texts.append(answer)
        texts.extend(c.quote.text for c in extract(answer) if c.quote is not None)
    return texts


def _found(matches: object) -> list[tuple[tuple[int, int], dict[str, str | None]]]:
    return [(m.span(), m.groupdict()) for m in matches]  # type: ignore[attr-defined]


@needs_compiled
def test_the_support_and_the_quantities_use_the_compiled_scans() -> None:
    assert numbers._support_scan is compiled
    text = "罚款不超过十万元，期限三至五年"
    assert type(numbers._matches(text)) is list
    assert _found(numbers._matches(text)) == _found(numbers._QUANTITY.finditer(text))


@needs_compiled
@given(_TEXTS)
def test_the_compiled_content_bigrams_are_the_split_ones(text: str) -> None:
    expected = support._python_content_bigrams(text)
    got = support.content_bigrams(text)
    assert got == expected and list(got) == list(expected)
    assert type(got) is frozenset


@needs_compiled
@given(_TEXTS)
def test_the_compiled_quantity_scan_is_finditer(text: str) -> None:
    assert _found(numbers._matches(text)) == _found(numbers._QUANTITY.finditer(text))


@needs_compiled
def test_the_flzx_answers_and_quotes_give_the_same_bigrams_and_quantities() -> None:
    texts = _flzx_texts()
    assert len(texts) > 5000
    for text in texts:
        key = normalize_for_compare(text)
        expected = support._python_content_bigrams(key)
        got = support.content_bigrams(key)
        assert got == expected and list(got) == list(expected), text
        assert _found(numbers._matches(text)) == _found(numbers._QUANTITY.finditer(text)), text


@pytest.mark.parametrize(
    ("text", "grams"),
    [
        ("", set()),
        ("应当", set()),  # a stock phrase alone
        ("劳动者应当支付工资", {"劳动", "动者", "支付", "付工", "工资"}),
        ("依照本法规定", set()),  # the longest phrase first: 依照本法, then 规定
        ("依照本法律师", {"律师"}),  # 依照本法 cut, not 依照 (本法律 would be 本法 + 律)
        ("民事责任人", {"民事"}),  # 责任 cut; 人 alone is no bigram
        ("有关部门", set()),
        ("𠀀法律𠀁", set()),  # astral characters around a phrase
        ("𠀀𠀁", {"𠀀𠀁"}),
    ],
)
def test_content_bigrams_table(text: str, grams: set[str]) -> None:
    assert support.content_bigrams(text) == grams
    assert support._python_content_bigrams(text) == grams


@pytest.mark.parametrize(
    ("text", "surfaces"),
    [
        ("罚款五百万元", ["五百万元"]),
        ("三分之二以上", ["三分之二以上"]),
        ("５０％和٣倍", ["５０％", "٣倍"]),  # full-width and Arabic-Indic digits are \d
        (
            "第三人十四周岁",
            ["三人", "十四周岁"],
        ),  # the scan still yields 三人; _quantities drops it
        ("十日十日", ["十日", "十日"]),  # adjacent matches
        ("不超过十万元", ["不超过十万元"]),  # a prefix bound word opens the match
        ("²倍", []),  # a digit that is not decimal opens nothing
        ("年满十八周岁", ["年满十八周岁"]),  # 年 opens the bound word 年满
        ("不得在三年", ["三年"]),  # 不 opens no bound word here
        ("不满", []),  # a bound word at the end: no numeral after it
        ("满满十日", ["满十日"]),
        ("第一百二十三条三百二十日", ["三百二十日"]),  # a run opened in vain, then one that opens
        ("双三倍", ["三倍"]),  # 双 opens in vain; 三 after it still opens
        ("12,34元", ["34元"]),  # digits after a comma: another run
        ("123a45日", ["45日"]),
        # A numeral's run must reach a follower (a unit, 分, %), else the pattern is not asked.
        ("统一规定，一方", []),
        ("依照第一百二十条第三款", []),
        ("五万元", ["五万元"]),  # 万 in the run, 元 after it
        ("一亿", []),  # 亿 in the run, no 元 after it
        ("五 万元，六\n亿元", ["五 万元", "六\n亿元"]),  # 万 and 亿 after white space
        ("1,000.5 元", ["1,000.5 元"]),  # separators in the run, white space before the unit
        ("三\u3000个月", ["三\u3000个月"]),  # any white space (\s)
        ("3,a元", []),
        ("十 条", []),
        ("两票多人", ["两票"]),
        ("三倍五星期", ["三倍", "五星期"]),
        ("百分之五十", ["百分之五十"]),
        ("不低于百分之五", ["不低于百分之五"]),  # after a bound word, 百 reaches 分
        ("未满半年", ["未满半年"]),  # an opener after a bound word
        ("不满一", []),  # a bound word whose numeral reaches nothing
        ("一", []),
    ],
)
def test_quantity_matches_table(text: str, surfaces: list[str]) -> None:
    assert [m.group() for m in numbers._matches(text)] == surfaces
    assert [m.group() for m in numbers._QUANTITY.finditer(text)] == surfaces


@needs_compiled
def test_the_compiled_scans_refuse_what_they_cannot_scan() -> None:
    assert compiled is not None
    with pytest.raises(TypeError):
        compiled.content_bigrams(b"bytes", ())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        compiled.content_bigrams("文本", ("应当", 1))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        compiled.quantity_matches(numbers._QUANTITY.match, b"1", "", "", ())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="empty"):
        compiled.quantity_matches(re.compile(r"(?=\d)").match, "1", "", "", ())
    with pytest.raises(TypeError):
        compiled.quantity_matches(numbers._QUANTITY.match, "1", "", "", (), 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        compiled.quantity_matches(numbers._QUANTITY.match, "1", "", "", (), "", "")  # type: ignore[call-arg]


@needs_compiled
def test_without_followers_every_numeral_is_asked() -> None:
    """The followers only spare the pattern: with none given, each numeral is asked (the
    pattern \\d+ answers at 1 even with no unit after it)."""
    assert compiled is not None
    match = re.compile(r"\d+").match
    assert [m.group() for m in compiled.quantity_matches(match, "a12 3", "", "", ())] == ["12", "3"]
    assert [m.group() for m in compiled.quantity_matches(match, "a12 3", "", "", (), "")] == [
        "12",
        "3",
    ]
    assert [m.group() for m in compiled.quantity_matches(match, "a12 3x", "", "", (), "x")] == ["3"]


def test_the_python_fallbacks_are_taken_without_the_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without the compiled module the references answer, and the results are the same."""
    texts = [*REAL_ARTICLES.values(), "罚款不超过十万元，期限三至五年，依照本法规定承担责任"]
    expected = [
        (support.content_bigrams(normalize_for_compare(t)), numbers._quantities.__wrapped__(t))
        for t in texts
    ]
    monkeypatch.setattr(support, "_support_scan", None)
    monkeypatch.setattr(numbers, "_support_scan", None)
    assert not isinstance(numbers._matches("十日"), list)  # finditer's iterator
    got = [
        (support.content_bigrams(normalize_for_compare(t)), numbers._quantities.__wrapped__(t))
        for t in texts
    ]
    assert got == expected


_KEYS = st.tuples(
    st.tuples(st.integers(1, 4), st.sampled_from([None, "之一", "之二"])),
    st.sampled_from(["", "第一条"]),
)
_SHARES = st.dictionaries(
    _KEYS, st.one_of(st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.floats(0, 1)), max_size=12
)


def _both_tops(
    shares: dict, cited: tuple, label: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[tuple[float, float], tuple[float, float]]:
    got = support._cited_and_top_other(shares, cited, label)
    with monkeypatch.context() as plain:
        plain.setattr(support, "_support_scan", None)
        expected = support._cited_and_top_other(shares, cited, label)
    return got, expected


@needs_compiled
@given(_SHARES, _KEYS)
def test_the_compiled_top_other_is_the_python_walk(shares: dict, key: tuple) -> None:
    """The cited share and the best other share, compiled and in Python: the same floats
    (ties, a cited share that is the one highest, none held, held under another label)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        got, expected = _both_tops(shares, key[0], key[1], monkeypatch)
    assert got == expected
    assert [type(v) for v in got] == [type(v) for v in expected]


@pytest.mark.parametrize(
    ("shares", "cited", "label", "expected"),
    [
        ({}, (1, None), "", (0.0, 0.0)),
        ({((1, None), ""): 0.5}, (1, None), "", (0.5, 0.0)),  # the cited alone
        ({((1, None), ""): 0.5, ((2, None), ""): 0.3}, (1, None), "", (0.5, 0.3)),  # second
        ({((1, None), ""): 0.5, ((2, None), ""): 0.5}, (1, None), "", (0.5, 0.5)),  # a tie
        ({((1, None), ""): 0.2, ((2, None), ""): 0.7}, (1, None), "", (0.2, 0.7)),
        ({((2, None), ""): 0.7, ((3, None), ""): 0.1}, (1, None), "", (0.0, 0.7)),  # none held
        ({((1, None), "x"): 0.4, ((2, None), ""): 0.1}, (1, None), "", (0.4, 0.1)),  # walked
        ({((1, None), ""): 0.5, ((2, None), ""): 1}, (1, None), "", (0.5, 1)),  # an int
    ],
)
def test_cited_and_top_other_table(
    shares: dict,
    cited: tuple,
    label: str,
    expected: tuple[float, float],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    got, python = _both_tops(shares, cited, label, monkeypatch)
    assert got == python == expected


@needs_compiled
def test_top_other_leaves_what_it_cannot_compare_to_python() -> None:
    assert compiled is not None
    assert compiled.top_other({((1, None), ""): float("nan")}, (2, None), None) is None
    assert compiled.top_other({((1, None), ""): -0.0}, (2, None), None) is None
    assert compiled.top_other({((1, None), ""): 1}, (2, None), None) is None
    assert compiled.top_other({((1, None), "x"): 0.5}, (1, None), None) is None
    assert compiled.top_other({((1, None), ""): 0.5}, (2, None), None) == 0.5
    with pytest.raises(TypeError):
        compiled.top_other([], (1, None), None)  # type: ignore[arg-type]


def test_no_bound_word_opens_with_a_numeral() -> None:
    """What the compiled scan's run rule assumes: a place inside a run of numerals opens no
    bound word, and the numerals are no decimal digits (read by [_CN]+, never by \\d+)."""
    assert not {word[0] for word in numbers._PREFIX_WORDS} & set(numbers._CN + "双半0123456789")
    assert not any(c.isdecimal() for c in numbers._CN + "双半")
