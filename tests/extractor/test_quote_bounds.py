"""The compiled sentence bounds, lead-in and comment finder (extractor/_quote_bounds.c) give
what the patterns give, and the patterns give what main's looking back in the reversed answer
gave."""

from __future__ import annotations

import importlib.util
import json
import sys
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

import extractor
from extractor import extract, quotes
from tests.conftest import SHARED_DIR

compiled = quotes._quote_bounds
needs_compiled = pytest.mark.skipif(compiled is None, reason="built without a C compiler")

# Sentence ends, the marks a claim keeps, spacing, other marks, and long runs without any
# (a claim side stops after MAX_CLAIM_SIDE = 400 characters).
_PIECES = [
    *("。", "！", "？", "；", "!", "?", ";", "\n", "，", ",", "：", " ", "\t", "\u3000", "\xa0"),
    *("”", "」", "a", "第", "条", "劳动合同法", "规定", "中" * 150, "法" * 399, "x" * 401),
]
_texts = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


def _bounds(data: st.DataObject, text: str) -> tuple[int, int]:
    start = data.draw(st.integers(0, len(text)))
    return start, data.draw(st.integers(start, len(text)))


def _main_claim_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """find_claim's bounds as main found them: back in the reversed answer, then on."""
    backwards, size = text[::-1], len(text)
    before = quotes._CLAIM_BODY_RE.match(backwards, size - start, size - start + 400)
    left = size - before.end()  # type: ignore[union-attr]
    right = quotes._CLAIM_TO_END_RE.match(text, end, end + 401).end()  # type: ignore[union-attr]
    while left < right and text[left] in " \t\u3000\xa0":
        left += 1
    return left, right


def _main_sentence_start(text: str, start: int, end: int) -> int:
    """find_quote's cut at the sentence before the next citation, as main made it."""
    backwards, size = text[::-1], len(text)
    body = quotes._CLAIM_BODY_RE.match(backwards, size - end, size - start)
    if body and body.end() < size - start:
        return end - (body.end() - (size - end))
    return start


@given(_texts, st.data())
def test_the_patterns_give_mains_bounds(text: str, data: st.DataObject) -> None:
    start, end = _bounds(data, text)
    assert quotes._python_claim_bounds(text, start, end) == _main_claim_bounds(text, start, end)
    assert quotes._python_sentence_start(text, start, end) == _main_sentence_start(text, start, end)


@needs_compiled
@given(_texts, st.data())
def test_compiled_bounds_are_the_patterns(text: str, data: st.DataObject) -> None:
    assert compiled is not None
    start, end = _bounds(data, text)
    assert compiled.claim_bounds(text, start, end) == quotes._python_claim_bounds(text, start, end)
    assert compiled.sentence_start(text, start, end) == quotes._python_sentence_start(
        text, start, end
    )


# The lead-in's pieces (quotes._LEAD_RE), pieces of them, and what may follow.
_LEAD_PIECES = [
    *(" ", "\t", "\u3000", "\xa0", "】", "]", "的", "之", "相关", "有关", "相", "也", "还", "亦"),
    *("均", "都", "明确", "具体", "中", "里", "规定如下", "规定了", "规定", "规", "指出", "提到"),
    *("载明", "写道", "表述为", "内容为", "内容如下", "内容", "如下", "如", "了", "：", ":", "，"),
    *(",", "\n", "“", "。", "x", "第五条"),
]
_lead_texts = st.lists(st.sampled_from(_LEAD_PIECES), max_size=14).map("".join)


@needs_compiled
@given(_lead_texts, st.data())
def test_compiled_lead_is_the_pattern(text: str, data: st.DataObject) -> None:
    assert compiled is not None
    after = data.draw(st.integers(0, len(text)))
    assert compiled.lead(text, after) == quotes._python_lead(text, after)


# Where a comment may start, its words, tags and what stands next to them.
_COMMENT_PIECES = [
    *("。", "！", "？", "!", "?", "；", ";", "，", ",", "\n", " ", "\t", "\u3000", "\xa0", "<"),
    *("eoa>", "<eo", "/", "a", "Z", "p>", "br/>", "xxxxx", ">", "因此", "所以", "综上", "因而"),
    *("因", "根据上述", "答：", "请你回答", "请回答", "场景:", "场景：", "场景", "建议", "你可以"),
    *("在本案中", "劳动", "法", "e", "1. "),
]
_comment_texts = st.lists(st.sampled_from(_COMMENT_PIECES), max_size=30).map("".join)


def test_the_word_lists_are_the_patterns() -> None:
    """The compiled finder reads the pattern's words as lists: the same words."""
    words, comma_words, prompt_words = quotes._COMMENT_WORD_LISTS
    assert "|".join(words) == quotes._COMMENT_WORDS
    assert set(comma_words) <= set(words)
    assert f"(?={'|'.join(comma_words)})" in quotes._COMMENT_RE.pattern
    assert f"(?={'|'.join(prompt_words)})" in quotes._COMMENT_RE.pattern


@needs_compiled
@given(_comment_texts, st.data())
def test_compiled_comment_is_the_pattern(text: str, data: st.DataObject) -> None:
    assert compiled is not None
    start, end = _bounds(data, text)
    words = quotes._COMMENT_WORD_LISTS
    assert compiled.comment(text, start, end, *words) == quotes._python_comment(
        text, start, end, *words
    )


@needs_compiled
@pytest.mark.parametrize(
    ("text", "comment"),
    [
        ("劳动者享有平等就业的权利。 因此，公司", (12, 14)),
        ("劳动者享有权利，因此公司", (7, 8)),
        ("劳动者享有权利，因为公司", None),
        ("劳动者享有权利\n  \n1. 公司", (7, 11)),
        ("劳动者享有权利<eoa>", (7, 12)),
        ("劳动者<br/>享有", (3, 8)),
        ("劳动者 < b 享有", None),
        ("劳动者享有权利\n请回答：", (7, 8)),
    ],
)
def test_comments_of_real_forms(text: str, comment: tuple[int, int] | None) -> None:
    assert compiled is not None
    words = quotes._COMMENT_WORD_LISTS
    assert compiled.comment(text, 0, len(text), *words) == comment
    assert quotes._python_comment(text, 0, len(text), *words) == comment


@needs_compiled
@pytest.mark.parametrize(
    ("text", "lead"),
    [
        ("第三条规定：“劳动者", (6, True, "：")),
        ("第三条的相关规定如下：\n1. ", (12, True, "：")),
        ("第三条，规定了劳动者", (7, False, "，")),
        ("第三条 经济补偿", (4, False, "")),
        ("第三条】明确指出，", (9, True, "，")),
    ],
)
def test_leads_of_real_forms(text: str, lead: tuple[int, bool, str]) -> None:
    assert compiled is not None
    assert compiled.lead(text, 3) == lead == quotes._python_lead(text, 3)


@needs_compiled
@pytest.mark.parametrize(
    ("text", "cited", "claim"),
    [
        (
            "劳动者享有权利。根据《劳动法》第三条规定，劳动者享有平等就业的权利！您可以申请仲裁。",
            "《劳动法》第三条",
            "根据《劳动法》第三条规定，劳动者享有平等就业的权利！",
        ),
        ("  \u3000依照刑法第二百六十四条；盗窃罪", "刑法第二百六十四条", "依照刑法第二百六十四条"),
        (
            "问：\n 《民法典》第一千零四十二条\n禁止包办婚姻",
            "《民法典》第一千零四十二条",
            "《民法典》第一千零四十二条",
        ),
        ("Under 《公司法》第3条? yes", "《公司法》第3条", "Under 《公司法》第3条?"),
    ],
)
def test_claims_of_real_forms(text: str, cited: str, claim: str) -> None:
    assert compiled is not None
    start = text.index(cited)
    left, right = compiled.claim_bounds(text, start, start + len(cited))
    assert text[left:right] == claim
    assert quotes.find_claim(text, start, start + len(cited)).text == claim


@needs_compiled
def test_a_claim_side_stops_after_400_characters() -> None:
    assert compiled is not None
    text = "中" * 500 + "第一条" + "法" * 400 + "。" + "后"
    assert compiled.claim_bounds(text, 500, 503) == (100, 904)  # the 。 right after 400 kept
    assert compiled.claim_bounds(text + "x", 500, 503)[1] == 904
    assert compiled.sentence_start(text, 0, 500) == 0
    assert compiled.sentence_start("甲。乙；丙", 0, 5) == 4


@needs_compiled
def test_bad_arguments_are_refused() -> None:
    assert compiled is not None
    with pytest.raises(TypeError):
        compiled.claim_bounds(b"abc", 0, 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        compiled.sentence_start("abc", 0)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        compiled.comment("a。b", 0, 3, ("b", 1), (), ())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        compiled.comment("a。b", 0, 3, "b", (), ())  # type: ignore[arg-type]
    words = quotes._COMMENT_WORD_LISTS
    assert compiled.comment("a。因此", 0, 4, *words) == (1, 2)  # the lists learnt still work


def _quotes_without_compiled_bounds(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """A fresh copy of extractor.quotes imported as where the module is not built."""
    spec = importlib.util.spec_from_file_location("quotes_without_c", quotes.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "quotes_without_c", module)
    monkeypatch.setitem(sys.modules, "extractor._quote_bounds", None)  # importing it fails
    monkeypatch.delattr(extractor, "_quote_bounds", raising=False)
    spec.loader.exec_module(module)
    return module


def test_without_the_module_the_patterns_find_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = [
        json.loads(line)["answer"]
        for line in (SHARED_DIR / "eval" / "flzx_dev_answers.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()[:300]
    ]
    found = [[citation.to_json() for citation in extract(answer)] for answer in answers]
    plain = _quotes_without_compiled_bounds(monkeypatch)
    assert plain._quote_bounds is None
    assert plain._claim_bounds is plain._python_claim_bounds
    assert plain._lead is plain._python_lead
    assert plain._comment is plain._python_comment
    assert plain._sentence_start is plain._python_sentence_start
    assert plain._quote_span is plain._python_quote_span
    assert plain._quote is plain._python_quote
    assert plain._claim is plain._python_claim
    monkeypatch.setattr("extractor.context.find_claim", plain.find_claim)
    monkeypatch.setattr("extractor.context.find_quote", plain.find_quote)
    assert [[citation.to_json() for citation in extract(answer)] for answer in answers] == found
    assert sum(map(len, found)) > 500


@needs_compiled
def test_the_comment_finder_learns_each_word_list() -> None:
    """Its test of a word's first character follows the list it is given, call by call."""
    assert compiled is not None
    words = quotes._COMMENT_WORD_LISTS
    text = "劳动者享有权利。甲方，因此"
    assert compiled.comment(text, 0, len(text), ("甲方",), (), ()) == (7, 8)
    assert compiled.comment(text, 0, len(text), *words) == (10, 11)
    assert compiled.comment(text, 0, len(text), ("", "甲方"), (), ()) == (7, 8)
    assert compiled.comment(text, 0, 8, ("",), (), ()) == (7, 8)  # an empty word: no test
    assert compiled.comment(text, 0, len(text), ("乙",), (), ()) is None
