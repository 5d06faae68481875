"""The compiled steps of the quote normalisation (verifier/_normalize.c) give what the Python
ones give: the width fold of `textnorm.fold_width`, the word characters that `[\\W_]+`
replaced by nothing leaves, and so the same comparison keys."""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

import verifier
from tests.verifier.statute_texts import REAL_ARTICLES
from textnorm import HALF_WIDTH, fold_width
from verifier import textnorm_quote
from verifier.textnorm_quote import normalize_for_compare

compiled = textnorm_quote._normalize
needs_compiled = pytest.mark.skipif(compiled is None, reason="built without a C compiler")

# Characters where the steps decide: the folded ones, their targets and neighbours, the
# underscore, digits and numerals of other scripts (alphanumeric or not), combining marks,
# the marker characters, letters whose lower case is special (final sigma, İ, Ǆ), the ends
# of the CJK block, astral characters; and any character at all.
_DECIDING = st.sampled_from(
    [chr(c) for c in HALF_WIDTH]
    + [chr(t) for t in HALF_WIDTH.values()]
    + ["\u3000", "\uff00", "\uff5f", "\uffe5", "_", "\uff3f", "٣", "²", "½", "Ⅻ", "〇", "\u0301"]
    + ["法", "条", "（", "）", "①", "⑳", "❿", "、", ".", "(", "\U0001f600", "\U00020000", "\n"]
    + ["\u00e9", "ß", "İ", "Σ", "ΑΣ", "Ǆ", "一", "鿿", "㐀", "A", "Z", "a", "0", "٠", "𝟎"]
)
_TEXTS = st.lists(st.one_of(_DECIDING, st.characters()), max_size=40).map("".join)


@needs_compiled
def test_the_normalisation_uses_the_compiled_steps() -> None:
    assert textnorm_quote._fold is compiled.fold_width  # type: ignore[union-attr]
    assert textnorm_quote._words is compiled.lowered_words  # type: ignore[union-attr]
    assert textnorm_quote._marker_char is compiled.holds_marker_char  # type: ignore[union-attr]
    assert textnorm_quote._decimal is compiled.holds_decimal  # type: ignore[union-attr]


@needs_compiled
def test_each_character_near_the_folded_ones_folds_as_the_table_says() -> None:
    """Every folded character, its neighbours and the other spaces, alone and in CJK text."""
    assert compiled is not None
    near = [*range(0xFEFF, 0xFF62), *range(0x2FFF, 0x3003), 0x20, 0xA0, 0x3007]
    for code in near:
        for text in (chr(code), f"法{chr(code)}条", f"a{chr(code)}"):
            assert compiled.fold_width(text) == fold_width(text), hex(code)


@needs_compiled
@given(_TEXTS)
def test_the_compiled_fold_is_the_translation(text: str) -> None:
    assert compiled is not None
    assert compiled.fold_width(text) == fold_width(text) == textnorm_quote._fold_width(text)


@needs_compiled
@given(_TEXTS)
def test_the_word_characters_are_what_the_pattern_leaves(text: str) -> None:
    assert compiled is not None
    assert compiled.word_characters(text) == re.sub(r"[\W_]+", "", text)
    assert compiled.word_characters(text) == "".join(c for c in text if c.isalnum())


@needs_compiled
@given(_TEXTS)
def test_the_lowered_words_are_the_word_characters_lowered(text: str) -> None:
    """str.lower is skipped only where it changes nothing (a-z, 0-9, CJK ideographs)."""
    assert compiled is not None
    assert compiled.lowered_words(text) == re.sub(r"[\W_]+", "", text).lower()


@needs_compiled
@given(_TEXTS)
def test_the_tests_find_what_the_searches_find(text: str) -> None:
    assert compiled is not None
    assert compiled.holds_marker_char(text) == (
        textnorm_quote._MARKER_CHARS.search(text) is not None
    )
    assert compiled.holds_decimal(text) == (re.search(r"\d", text) is not None)


def _textnorm_quote_without_compiled_steps(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """A fresh copy of verifier.textnorm_quote imported as where the module is not built."""
    spec = importlib.util.spec_from_file_location("textnorm_quote_plain", textnorm_quote.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "textnorm_quote_plain", module)
    monkeypatch.setitem(sys.modules, "verifier._normalize", None)  # importing it fails
    monkeypatch.delattr(verifier, "_normalize", raising=False)
    spec.loader.exec_module(module)
    return module


def test_without_the_module_the_python_steps_give_the_same_keys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = _textnorm_quote_without_compiled_steps(monkeypatch)
    assert plain._normalize is None
    assert plain._fold is plain._fold_width
    assert plain._words is plain._lowered_words
    assert plain._marker_char is plain._holds_marker_char
    assert plain._decimal is plain._holds_decimal
    texts = [*REAL_ARTICLES.values(), "（一）第１２条　Ａｂｃ<eoa>", "1. 应当_规定；②"]
    for text in texts:
        for piece in (text, *text.split("\n")):
            assert plain.normalize_for_compare(piece) == normalize_for_compare(piece)


@functools.cache
def _plain_module() -> ModuleType:
    """verifier.textnorm_quote imported anew as where the module is not built (made once, the
    import system left as it was)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        return _textnorm_quote_without_compiled_steps(monkeypatch)


@given(_TEXTS)
def test_the_keys_are_those_of_the_python_steps(text: str) -> None:
    """normalize_for_compare with whichever steps are built gives, for any text, the key the
    Python steps give."""
    plain = _plain_module()
    assert plain._normalize is None
    assert normalize_for_compare(text) == plain.normalize_for_compare(text)


@needs_compiled
def test_every_code_point_is_kept_and_tested_as_the_database_says() -> None:
    """Over every code point (the ASCII and CJK shortcuts' bounds, and all the others), the
    word characters are those str.isalnum holds, and a digit is found where str.isdecimal
    holds."""
    assert compiled is not None
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    assert compiled.word_characters(every) == "".join(c for c in every if c.isalnum())
    found = [c for c in every if compiled.holds_decimal(c)]
    assert found == [c for c in every if c.isdecimal()]


# Where the sentence split decides: its ends, white space of every kind (what str.strip
# strips, and what it does not: U+200B), characters sharing an end's low six bits, the
# clause ends it does not split at, CJK and astral text; and any character at all.
_ENDS = list(textnorm_quote._SENTENCE_ENDS)
_SPLIT_DECIDING = st.sampled_from(
    _ENDS
    + [" ", "\t", "\r", "\x0b", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u3000", "\u200b"]
    + [chr(ord(end) ^ 64) for end in _ENDS]
    + [chr(ord(end) + 64) for end in _ENDS]
    + ["，", ",", "、", "法", "条", "a", "\U00020000", "（一）"]
)
_SPLIT_TEXTS = st.lists(st.one_of(_SPLIT_DECIDING, st.characters()), max_size=40).map("".join)


def test_the_sentence_ends_are_the_pattern_s() -> None:
    """The compiled split is given the characters of the pattern's classes."""
    ends = textnorm_quote._SENTENCE_ENDS.replace("\n", "\\n")
    assert textnorm_quote._SENTENCE.pattern == f"[^{ends}]*[{ends}]|[^{ends}]+"


@needs_compiled
def test_the_split_uses_the_compiled_sentences() -> None:
    assert compiled is not None
    text = "第一条 为了。\n保护；（一）甲：乙"
    assert textnorm_quote.split_sentences(text) == ["第一条 为了。", "保护；", "（一）甲：", "乙"]
    assert compiled.sentences(text, "") == [text]
    assert compiled.sentences("a,b, ", ",") == ["a,", "b,"]
    with pytest.raises(TypeError):
        compiled.sentences(text)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        compiled.sentences(b"text", "。")  # type: ignore[arg-type]


@needs_compiled
@given(_SPLIT_TEXTS)
def test_the_compiled_split_is_the_pattern_s(text: str) -> None:
    assert textnorm_quote.split_sentences(text) == textnorm_quote._python_split_sentences(text)


@needs_compiled
def test_the_real_articles_and_answers_split_as_the_pattern_splits_them() -> None:
    from tests.verifier.test_support_scan import _flzx_texts

    texts = _flzx_texts()
    assert len(texts) > 5000
    for text in texts:
        assert textnorm_quote.split_sentences(text) == textnorm_quote._python_split_sentences(text)


def test_without_the_module_the_pattern_splits(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = _textnorm_quote_without_compiled_steps(monkeypatch)
    assert plain._normalize is None
    for text in REAL_ARTICLES.values():
        assert plain.split_sentences(text) == textnorm_quote.split_sentences(text)
