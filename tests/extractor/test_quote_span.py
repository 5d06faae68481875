"""The compiled quote finder (extractor/_quote_bounds.c: quote_span) gives the span the Python
find_quote gives, with the patterns alone (the module blocked): on random texts of the
characters that matter, over every find_quote call extract makes on the eval answers, and on
real forms; without the module, find_quote is the Python one."""

from __future__ import annotations

import dataclasses
import gc
import importlib.util
import json
import lzma
import pickle
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import extractor
from extractor import Lexicon, context, extract, models, quotes
from extractor.models import Quote, Span, new_span, python_new_span
from tests.conftest import SHARED_DIR

compiled = quotes._quote_bounds
needs_compiled = pytest.mark.skipif(compiled is None, reason="built without a C compiler")
WORDS = quotes._QUOTE_WORD_LISTS


@contextmanager
def _module_blocked() -> Iterator[None]:
    """Importing extractor._quote_bounds fails within (as where it is not built)."""
    saved = sys.modules.get("extractor._quote_bounds")
    had = hasattr(extractor, "_quote_bounds")
    attribute = getattr(extractor, "_quote_bounds", None)
    sys.modules["extractor._quote_bounds"] = None  # type: ignore[assignment]
    if had:
        delattr(extractor, "_quote_bounds")
    try:
        yield
    finally:
        if saved is None:
            sys.modules.pop("extractor._quote_bounds", None)
        else:
            sys.modules["extractor._quote_bounds"] = saved
        if had:
            extractor._quote_bounds = attribute  # type: ignore[attr-defined]


def _plain_quotes() -> ModuleType:
    """A fresh copy of extractor.quotes imported without the compiled module: the patterns."""
    spec = importlib.util.spec_from_file_location("quotes_plain_span", quotes.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    with _module_blocked():
        spec.loader.exec_module(module)
    assert module._quote_bounds is None
    return module


plain = _plain_quotes()


def _python_span(text: str, after: int, limit: int, cited_at: int | None) -> tuple[int, int] | None:
    """find_quote's span as the patterns alone give it."""
    return plain._python_quote_span(text, after, limit, cited_at)  # type: ignore[no-any-return]


def test_the_plain_copy_is_the_patterns() -> None:
    assert plain._quote_span is plain._python_quote_span
    assert plain._quote is plain._python_quote
    assert plain._claim is plain._python_claim
    assert plain._lead is plain._python_lead
    assert plain._comment is plain._python_comment
    assert plain._sentence_start is plain._python_sentence_start


@needs_compiled
def test_the_constants_are_the_pythons() -> None:
    """What the C states itself is extractor.quotes's."""
    assert compiled is not None
    assert compiled.MAX_QUOTE == quotes.MAX_QUOTE
    assert compiled.MAX_CLAIM_SIDE == quotes.MAX_CLAIM_SIDE
    assert compiled.COMMENT_REACH == quotes._COMMENT_REACH
    opens = compiled.OPEN_QUOTES
    assert dict(zip(opens[::2], opens[1::2], strict=True)) == quotes._OPEN_QUOTES
    assert compiled.SENTENCE_ENDS == quotes._SENTENCE_ENDS
    assert compiled.TRAILING == quotes._TRAILING
    assert compiled.LIST_LINE_FIRST == quotes._LIST_LINE_FIRST


def test_the_word_lists_are_in_the_c_order() -> None:
    """quote_span reads the lists by place (_quote_bounds.c's enum)."""
    assert (
        quotes._ANSWER_VOICE,
        quotes._INSTRUCTION,
        quotes._APPLYING,
        quotes._NOT_CONTENT,
        *quotes._COMMENT_WORD_LISTS,
    ) == quotes._QUOTE_WORD_LISTS


# The characters that matter and the words of the lists, next to plain Han and long runs (a
# heading holds at most 20 or 40 characters, a quote MAX_QUOTE = 5000).
_PIECES = [
    *("“", "”", '"', "「", "」", "『", "』", "‘", "’", "：", ":", "，", ",", "。", "！", "？"),
    *("!", "?", "；", ";", "\n", "\n\n", " ", "\t", "\u3000", "\xa0", "【", "】", "[", "]"),
    *("罪", "盗窃罪", "1", "12", "123", "３", "٣", ".", "．", "、", "一", "二", "三", "十"),
    *("（", "）", "(", ")", "（一）", "1. ", "<eoa>", "<", ">", "<br/>", "</p>", "<b>", "e"),
    *("劳动", "合同", "法", "第三条", "甲" * 19, "乙" * 39, "丙" * 2499),
    *("的", "之", "相关", "也", "明确", "中", "规定", "规定了", "规定如下", "指出", "如下", "了"),
    *quotes._ANSWER_VOICE,
    *quotes._APPLYING,
    *(word for word in quotes._NOT_CONTENT if len(word) > 1),
    *quotes._COMMENT_WORD_LISTS[0],
    *quotes._COMMENT_WORD_LISTS[2],
]
_texts = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


@needs_compiled
@given(_texts, st.data())
def test_compiled_span_is_the_patterns(text: str, data: st.DataObject) -> None:
    assert compiled is not None
    after = data.draw(st.integers(0, len(text) + 1), label="after")
    limit = data.draw(st.integers(-1, len(text) + 2), label="limit")
    cited_at = data.draw(st.none() | st.integers(0, len(text) + 1), label="cited_at")
    span = compiled.quote_span(text, after, limit, cited_at, WORDS)
    assert span == _python_span(text, after, limit, cited_at)
    assert span == quotes._python_quote_span(text, after, limit, cited_at)


# A citation, the words before it, a lead-in, what may open the content and the content: the
# forms find_quote tells apart, and the marks, words and lines inside a recitation.
_BEFORE = ["根据", "按照", "依照", "遵照", "依据", "", "\n"]
_LEAD_INS = [
    *("", "规定：", "规定，", "：", "，", " ", "规定", "的规定，", "中规定：", "明确规定如下：\n"),
    *("，规定", "\n", "的", "等", "第一款", "】", "规定:\n\n"),
]
_OPENERS = [
    *("", "“", "「", '"', "『", "‘", "【盗窃罪】", "盗窃罪：", "窃罪：", "罪：", "[注] ", "【】"),
    *("【" + "乙" * 40 + "】", "[" + "乙" * 41 + "]", "甲" * 19 + "罪：", "甲" * 20 + "罪:"),
    *("您", "如果您", "因此", "1. ", "（一）", "一、", "١. ", "12．", "123. "),
]
_BODY = [
    *("“", "”", '"', "「", "」", "『", "』", "‘", "’", "。", "！", "？", "!", "?", "；", ";"),
    *("，", ",", "：", ":", "（一）", "(二)", "（十一）", "（", "\n", "\n\n", "\n \n", "1. "),
    *("12、", "123. ", "١. ", "1.5", "一、", " ", "\u3000", "因此", "所以", "您可以", "综上"),
    *("请回答", "<eoa>", "<span title='", "'>", "<br/>", "劳动者享有权利", "法", "x" * 10),
    "丙" * 4990,
]
_bodies = st.lists(st.sampled_from(_BODY), max_size=30).map("".join)


@needs_compiled
@settings(max_examples=400)
@given(
    st.sampled_from(_BEFORE),
    st.sampled_from(_LEAD_INS),
    st.sampled_from(_OPENERS),
    _bodies,
    st.data(),
)
def test_compiled_span_after_a_citation(
    before: str, lead_in: str, opener: str, body: str, data: st.DataObject
) -> None:
    """Where find_quote is called: right after a citation, the words before it tested."""
    assert compiled is not None
    text = f"{before}《劳动法》第三条{lead_in}{opener}{body}"
    after = len(before) + 8
    limit = data.draw(st.sampled_from([len(text)]) | st.integers(after, len(text) + 1))
    cited_at = data.draw(st.sampled_from([len(before), None, 0]), label="cited_at")
    span = compiled.quote_span(text, after, limit, cited_at, WORDS)
    assert span == _python_span(text, after, limit, cited_at)


# Quote marks, nested and not, with little between them.
_QUOTED = ["“", "”", "「", "」", "『", "』", "‘", "’", '"', "法", "。", "\n", "：", "，"]


@needs_compiled
@settings(max_examples=300)
@given(
    st.sampled_from(["规定：", "", "规定", "，"]), st.lists(st.sampled_from(_QUOTED), max_size=16)
)
def test_compiled_quote_marks_are_the_patterns(lead_in: str, body: list[str]) -> None:
    """Which mark closes a quote (nested ones counted) and what is read when none does."""
    assert compiled is not None
    text = f"《劳动法》第三条{lead_in}{''.join(body)}"
    assert compiled.quote_span(text, 8, len(text), 0, WORDS) == _python_span(text, 8, len(text), 0)


# After "，": sentence ends, recital signs and their pieces, comments and tags near them.
_AFTER_COMMA = [
    *("。", "！", "?", "：", ":", "（一）", "(二)", "（十一）", "（", "）", "(", ")", "一", "三"),
    *("十", "法", "因此", "，", "，因此", "<b x='。'>", "<b title='", "'>", "x" * 9, "\n"),
]


@needs_compiled
@settings(max_examples=300)
@given(st.lists(st.sampled_from(_AFTER_COMMA), max_size=16))
def test_compiled_sentence_after_a_comma_is_the_patterns(body: list[str]) -> None:
    """After "，" one sentence, unless a recital sign comes before its end."""
    assert compiled is not None
    text = f"《劳动法》第三条，{''.join(body)}"
    assert compiled.quote_span(text, 8, len(text), 0, WORDS) == _python_span(text, 8, len(text), 0)


@needs_compiled
@pytest.mark.parametrize("length", [4999, 5000, 5001, 6000])
def test_a_quote_stops_after_max_quote(length: int) -> None:
    """A recitation holds at most MAX_QUOTE characters; a quote mark closes within them."""
    assert compiled is not None
    text = "《劳动法》第三条规定：" + "法" * length
    assert compiled.quote_span(text, 8, len(text), 0, WORDS) == (11, 11 + min(length, 5000))
    assert _python_span(text, 8, len(text), 0) == (11, 11 + min(length, 5000))
    quoted = "《劳动法》第三条规定：“" + "法" * length + "”"
    span = (12, 12 + length) if length < 5000 else (12, 12 + 5000)  # unclosed: read on
    assert compiled.quote_span(quoted, 8, len(quoted), 0, WORDS) == span
    assert _python_span(quoted, 8, len(quoted), 0) == span


def _answers(name: str) -> list[str]:
    path = SHARED_DIR / "eval" / name
    if name.endswith(".xz"):
        with lzma.open(path, "rt", encoding="utf-8") as packed:
            lines = packed.read().splitlines()
    else:
        lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["answer"] for line in lines]


Call = tuple[str, int, int, "int | None"]


def _calls(answers: list[str], lexicon: Lexicon) -> tuple[list[Call], list[tuple[str, int, int]]]:
    """The arguments of every find_quote and find_claim call extract makes over `answers`."""
    quote_calls: list[Call] = []
    claim_calls: list[tuple[str, int, int]] = []
    find_quote, find_claim = context.find_quote, context.find_claim

    def quoting(text: str, after: int, limit: int, cited_at: int | None = None) -> object:
        quote_calls.append((text, after, limit, cited_at))
        return find_quote(text, after, limit, cited_at)

    def claiming(text: str, start: int, end: int) -> object:
        claim_calls.append((text, start, end))
        return find_claim(text, start, end)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(context, "find_quote", quoting)
        patch.setattr(context, "find_claim", claiming)
        for answer in answers:
            extract(answer)
            extract(answer, lexicon)
    return quote_calls, claim_calls


def _same(made: Span | None, reference: Span | None) -> bool:
    """The same object but for its identity: class, fields, equality."""
    if made is None or reference is None:
        return made is reference
    return (
        type(made) is type(reference)
        and made == reference
        and (made.text, made.start, made.end) == (reference.text, reference.start, reference.end)
    )


@needs_compiled
@pytest.mark.parametrize(
    ("name", "every"),
    [
        ("flzx_dev_answers.jsonl", 1),
        ("quote_dev.jsonl", 1),
        ("claim_support_dev.jsonl", 1),
        ("lb32_dev_answers.jsonl.xz", 8),  # 2,000 of the 16,000 (all: by hand, the same)
    ],
)
def test_compiled_span_over_real_answers(name: str, every: int, lexicon: Lexicon) -> None:
    """Every find_quote call of extract (without and with a lexicon) gives the same span, and
    the same Quote; every find_claim call the same Span."""
    assert compiled is not None
    quote_calls, claim_calls = _calls(_answers(name)[::every], lexicon)
    spans = [compiled.quote_span(*call, WORDS) for call in quote_calls]
    assert spans == [_python_span(*call) for call in quote_calls]
    assert len(quote_calls) > 1000
    assert sum(span is not None for span in spans) > len(quote_calls) // 2
    assert all(_same(quotes.find_quote(*call), plain.find_quote(*call)) for call in quote_calls)
    assert all(_same(quotes.find_claim(*call), plain.find_claim(*call)) for call in claim_calls)
    assert len(claim_calls) > 1000


@needs_compiled
@pytest.mark.parametrize("make", [new_span, python_new_span])
def test_compiled_spans_are_made_by_the_maker(make: Callable[..., Span]) -> None:
    """quote and claim hand the class and the bounds they find to the maker they are given
    (models.new_span: the compiled maker, or the Python one), as _python_quote and
    _python_claim do: the same objects, whichever maker."""
    assert compiled is not None
    text = "《劳动法》第一条规定：“劳动者享有权利。”因此，甲。"
    made = compiled.quote(text, 8, len(text), 0, WORDS, make, Quote)
    reference = python_new_span(Quote, "劳动者享有权利。", 12, 20)
    assert _same(made, reference)
    assert _same(quotes._python_quote(text, 8, len(text), 0, WORDS, make, Quote), reference)
    claim = compiled.claim(text, 0, 8, make, Span)
    left, right = plain._python_claim_bounds(text, 0, 8)
    assert _same(claim, python_new_span(Span, text[left:right], left, right))
    assert _same(quotes._python_claim(text, 0, 8, make, Span), claim)
    assert compiled.quote("。甲", 0, 2, None, WORDS, make, Quote) is None  # not content
    for found in (made, claim):
        assert (hash(found), repr(found), pickle.loads(pickle.dumps(found))) == (
            hash(found.__class__(found.text, found.start, found.end)),
            repr(found.__class__(found.text, found.start, found.end)),
            found,
        )
        with pytest.raises(dataclasses.FrozenInstanceError):
            found.text = "x"  # type: ignore[misc]


@needs_compiled
def test_the_maker_gets_the_class_and_the_bounds() -> None:
    """What the compiled module hands the maker, and its refusals: no maker, a maker that
    fails (its error comes through), too few arguments."""
    assert compiled is not None
    calls: list[tuple[object, ...]] = []

    def record(*args: object) -> object:
        calls.append(args)
        return args

    assert compiled.claim("甲。乙丙。", 3, 4, record, Span) == (Span, "乙丙。", 2, 5)
    assert compiled.quote("第一条：规定甲乙", 3, 8, None, WORDS, record, Quote) == (
        Quote,
        "规定甲乙",
        4,
        8,
    )
    assert len(calls) == 2

    def failing(*args: object) -> object:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        compiled.claim("甲。乙丙。", 3, 4, failing, Span)
    with pytest.raises(TypeError):
        compiled.claim("abc", 0, 1, "Span", Span)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        compiled.quote("abc", 0, 1, None, WORDS, None, Quote)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        compiled.claim("abc", 0, 1, record)  # type: ignore[call-arg]
    assert not gc.is_tracked(quotes.find_claim("甲。乙丙。", 3, 4)) or models._slotted is None


@needs_compiled
@pytest.mark.parametrize(
    ("text", "quote"),
    [
        ("《劳动法》第三条规定：“劳动者享有平等就业的权利。”因此", "劳动者享有平等就业的权利。"),
        ("《劳动法》第三条规定：“他说“不”就算了”。", "他说“不”就算了"),
        ("《劳动法》第三条规定：“”劳动者享有权利。", "”劳动者享有权利"),  # an empty quote
        ("《刑法》第二百六十四条【盗窃罪】盗窃公私财物，数额较大的", "盗窃公私财物，数额较大的"),
        ("《刑法》第二百六十四条：【盗窃罪】盗窃公私财物。因此您", "盗窃公私财物"),
        ("《刑法》第二百六十四条：盗窃罪：盗窃公私财物。\n\n您", "盗窃公私财物"),
        ("《劳动法》第三条，劳动者享有权利。用人单位应当", "劳动者享有权利"),
        ("《劳动法》第三条，您可以申请仲裁。", None),
        (
            "《劳动法》第三条规定，有下列情形之一的：（一）严重违纪。（二）失职",
            "有下列情形之一的：（一）严重违纪",
        ),
        ("《劳动法》第三条 经济补偿按工作年限支付。<eoa>", "经济补偿按工作年限支付"),
        ("《劳动法》第三条的规定，劳动者", "劳动者"),
        ("《劳动法》第三条中规定", None),
        ("《劳动法》第三条第一款规定", None),
        ("按照《劳动法》第三条，办理手续。", None),
        ("依照《劳动法》第三条解除合同的，应当", None),
        ("根据《劳动法》第三条，劳动者享有权利。", "劳动者享有权利"),
        ("《劳动法》第三条“劳动者享有权利”", "劳动者享有权利"),  # the quote right after it
        (
            "《劳动法》第三条，劳动者<b title='。" + "x" * 18 + "'>享有",
            "劳动者",
        ),  # a tag 21 past its 。
        ("《劳动法》第三条：有下列情形之一的；\n\n1. 严重违纪。因此", "有下列情形之一的"),
        ("《劳动法》第三条：有下列情形之一的：\n\n123. 严重违纪。因此", "有下列情形之一的："),
        (
            "《劳动法》第三条：有下列情形之一的：\n\n12. 严重违纪。因此",
            "有下列情形之一的：\n\n12. 严重违纪",
        ),
        ("《刑法》第二百六十四条窃罪：盗窃公私财物", "窃罪：盗窃公私财物"),
    ],
)
def test_quotes_of_real_forms(text: str, quote: str | None) -> None:
    after = text.index("条") + 1
    cited_at = text.index("《")
    span = _python_span(text, after, len(text), cited_at)
    assert compiled is not None
    assert compiled.quote_span(text, after, len(text), cited_at, WORDS) == span
    found = quotes.find_quote(text, after, len(text), cited_at)
    if quote is None:
        assert found is None and span is None
    else:
        assert found is not None and found.text == quote == text[found.start : found.end]
        assert span == (found.start, found.end)


@needs_compiled
def test_the_list_runs_on_after_a_colon() -> None:
    """A lead-in ending in a colon, then numbered lines after blank lines: one recitation."""
    text = "《劳动法》第三条：有下列情形之一的：\n\n1. 严重违纪；\n\n2. 失职\n\n因此您"
    found = quotes.find_quote(text, 8, len(text), 0)
    assert found is not None and found.text == "有下列情形之一的：\n\n1. 严重违纪；\n\n2. 失职"
    unicode_digits = text.replace("1.", "١.").replace("2.", "٢.")  # \d: str.isdecimal
    assert compiled is not None
    span = compiled.quote_span(unicode_digits, 8, len(text), 0, WORDS)
    assert span == (found.start, found.end) == _python_span(unicode_digits, 8, len(text), 0)


@needs_compiled
def test_bad_arguments_are_refused() -> None:
    assert compiled is not None
    with pytest.raises(TypeError):
        compiled.quote_span(b"abc", 0, 3, None, WORDS)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        compiled.quote_span("abc", 0, 3, None)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        compiled.quote_span("abc", 0, 3, None, WORDS[:6])
    with pytest.raises(TypeError):
        compiled.quote_span("abc", 0, 3, None, (*WORDS[:6], ("a", 1)))
    with pytest.raises(ValueError):
        compiled.quote_span("abc", -1, 3, None, WORDS)
    with pytest.raises(ValueError):
        compiled.quote_span("abc", 0, 3, -1, WORDS)
    assert compiled.quote_span("第三条：劳动者", 3, 7, None, WORDS) == (4, 7)  # still works


def test_without_the_module_find_quote_is_pythons(monkeypatch: pytest.MonkeyPatch) -> None:
    """The module blocked: find_quote and find_claim run the Python and find the same."""
    answers = _answers("quote_dev.jsonl")
    found = [[citation.to_json() for citation in extract(answer)] for answer in answers]
    monkeypatch.setattr(context, "find_quote", plain.find_quote)
    monkeypatch.setattr(context, "find_claim", plain.find_claim)
    assert [[citation.to_json() for citation in extract(answer)] for answer in answers] == found
    assert sum(citation["quote"] is not None for cited in found for citation in cited) > 500
