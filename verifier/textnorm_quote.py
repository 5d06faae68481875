"""Text normalisation for comparing a quoted recitation with an article's text.

Both sides go through `normalize_for_compare`, so only differences of wording survive: width,
punctuation, spaces, item markers (（一）, (1), ①, 1.), Arabic versus Chinese numerals and
the "。" artefacts of joined paragraphs all vanish. `quote_variants` removes the framing that
models put around a recitation ("商业银行法第五十四条规定如下", "以上就是第十七条的内容").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from textnorm import HALF_WIDTH, int_to_cn
from textnorm.kept import kept_pattern

# Markup tokens some models emit (<eoa>, </s>, <|endoftext|>); never part of a statute.
_MARKUP = re.compile(r"<\|?/?[A-Za-z_]{1,20}\|?>")
# Item and list markers, once brackets and digits are half-width.
_ITEM_MARKERS = kept_pattern(
    r"\(\s*[一二三四五六七八九十百\d]{1,4}\s*\)"  # （一） (1)
    r"|[\u2460-\u2473\u2776-\u277f]"  # ① … ⑳, ❶ … ❿
    r"|^\s*(?:\d{1,3}|[一二三四五六七八九十]{1,3})\s*[.、](?!\d)",  # 1. 一、 at a line's start
    re.MULTILINE,
)
# A character every item marker holds (once brackets are half-width): a text without one has
# no marker, and is not searched for them (a search for these is a quarter of the cost).
_MARKER_CHARS = kept_pattern(r"[(.、\u2460-\u2473\u2776-\u277f]")
# The characters the first two kinds need: a text without any can hold only the third kind, at
# a line's start, and one without a line break before its last character only at its start,
# where a match is tried once (the pattern tried every place: half the cost of normalising a
# statute's sentences, most of which hold a 、).
_BRACKET_OR_CIRCLED = kept_pattern(r"[(\u2460-\u2473\u2776-\u277f]")
_LINE_ITEM = kept_pattern(
    r"^\s*(?:\d{1,3}|[一二三四五六七八九十]{1,3})\s*[.、](?!\d)", re.MULTILINE
)
_ARABIC = re.compile(r"\d+")
_DIGIT = re.compile(r"\d")  # a text without one is not searched for _ARABIC (twice the cost)
_NOT_WORD = re.compile(r"[\W_]+")

# An article's sentences: a quote is compared with runs of whole sentences. Each ends at one
# of these characters (the last may end at the text's end): the pieces a split after each of
# them makes, but found at a few instructions a character (a split at a look-behind tried the
# pattern at every place, about a fifth of the cost of preparing an article).
_SENTENCE = kept_pattern(r"[^。；;！？!?：:\n]*[。；;！？!?：:\n]|[^。；;！？!?：:\n]+")
_SENTENCE_ENDS = "。；;！？!?：:\n"  # the class's characters, for the compiled split
# Where clauses of a quote end, for measuring how much of the quote the article contains.
CLAUSE_END = kept_pattern(r"[。；;！？!?：:，,\n]+")

_NUMERAL = r"[零〇一二两三四五六七八九十百千\d]+"
_LABEL = rf"第{_NUMERAL}条(?:之[一二三四五六七八九十]+)?"
# Framing before a recitation: up to an article label within the first 80 characters, with the
# words that introduce the text (规定如下：, 的内容是“, ：).
_LEADING_FRAME = kept_pattern(
    rf"{_LABEL}(?:的)?(?:规定|内容|条文|原文|全文)?(?:如下|是|为)?[:：，,\s“\"「『]*"
)
_FRAME_WINDOW = 80
# Framing after a recitation: a last sentence that only says what was recited.
_TRAILING_FRAME = kept_pattern(
    r"(?:^|(?<=[。.！!\n]))\s*(?:以上|上述|这就是|这是|该条|此条|本条)[^。\n]{0,60}"
    r"(?:内容|规定|条文)[^。\n]{0,10}[。.]?\s*$"
)
# The words one of which every trailing frame holds: a text without any is not searched for one
# (the search tried the pattern at every place, a fifth of the cost of a quote's variants).
_TRAILING_WORDS = ("以上", "上述", "这就是", "这是", "该条", "此条", "本条")
_QUOTE_MARKS = "“”\"「」『』‘’'"


# The characters the width fold changes (`textnorm.HALF_WIDTH`: full-width ASCII forms and the
# ideographic space), each to its ASCII target. A text holds few distinct ones (，；：（）), so
# each is replaced where it occurs: str.translate made an int and looked up the table for
# every character. The targets are ASCII, which the fold leaves as they are, so replacing one
# character after another gives what translating them all at once gives.
_FOLDED = kept_pattern("[" + "".join(re.escape(chr(code)) for code in sorted(HALF_WIDTH)) + "]")
_FOLD_TARGET = {chr(code): chr(target) for code, target in HALF_WIDTH.items()}


def _fold_width(text: str) -> str:
    """`textnorm.fold_width(text)`: every full-width ASCII form and the ideographic space to
    ASCII."""
    for char in dict.fromkeys(_FOLDED.findall(text)):
        text = text.replace(char, _FOLD_TARGET[char])
    return text


def _lowered_words(text: str) -> str:
    """The alphanumeric characters of text (those that are not [\\W_]), in order, lowered."""
    return _NOT_WORD.sub("", text).lower()


def _holds_marker_char(text: str) -> bool:
    return _MARKER_CHARS.search(text) is not None


def _holds_decimal(text: str) -> bool:
    return _DIGIT.search(text) is not None


try:  # the steps compiled (verifier/_normalize.c, built by setup.py where it can be)
    from verifier import _normalize
except ImportError:  # pragma: no cover - a build without a C compiler: the Python steps
    _normalize = None  # type: ignore[assignment]

_fold: Callable[[str], str] = _fold_width if _normalize is None else _normalize.fold_width
_words: Callable[[str], str] = _lowered_words if _normalize is None else _normalize.lowered_words
_marker_char: Callable[[str], bool] = (
    _holds_marker_char if _normalize is None else _normalize.holds_marker_char
)
_decimal: Callable[[str], bool] = _holds_decimal if _normalize is None else _normalize.holds_decimal


def _arabic_to_cn(match: re.Match[str]) -> str:
    return int_to_cn(int(match.group()))


def _without_item_markers(text: str) -> str:
    """`_ITEM_MARKERS.sub("", text)`. Without a bracket or circled numeral, only the third
    branch (at a line's start) can match anywhere, so it alone finds the same matches; without
    a line break before the last character, the only line start it can match at is the first
    (one after a final break ends the text, and a marker needs a numeral)."""
    if _BRACKET_OR_CIRCLED.search(text) is not None:
        return _ITEM_MARKERS.sub("", text)
    if text.find("\n", 0, len(text) - 1) >= 0:
        return _LINE_ITEM.sub("", text)
    found = _LINE_ITEM.match(text)
    return text if found is None else text[found.end() :]


@lru_cache(maxsize=65_536)
def normalize_for_compare(text: str) -> str:
    """The comparison key of a text: its words only, numerals in Chinese, no markers."""
    text = _fold(text)
    if "<" in text:
        text = _MARKUP.sub("", text)
    if _marker_char(text):
        text = _without_item_markers(text)
    if _decimal(text):
        text = _ARABIC.sub(_arabic_to_cn, text)
    return _words(text)


def _python_split_sentences(text: str) -> list[str]:
    """An article's sentences as written (ending at 。；！？： or a line break), empty ones dropped."""
    return list(filter(str.strip, _SENTENCE.findall(text)))


def split_sentences(text: str) -> list[str]:
    """An article's sentences as written (ending at 。；！？： or a line break), empty ones dropped
    (`_python_split_sentences`; compiled where verifier/_normalize.c is built: the engine
    tested the class of each character, most of what the split cost)."""
    if _normalize is None:
        return _python_split_sentences(text)
    return _normalize.sentences(text, _SENTENCE_ENDS)


def split_clauses(text: str) -> list[str]:
    """A quote's clauses (ending at 。；！？：， or a line break), empty ones dropped."""
    return [part for part in CLAUSE_END.split(text) if part.strip()]


def quote_variants(quote: str) -> list[str]:
    """The quote as given, and without the framing a model put before or after it.

    Leading framing is cut after the first and after the last article label found in the first
    80 characters (a model may name two articles before reciting); trailing framing is a final
    sentence such as "以上就是……第十七条的内容。". Only variants that still hold text are kept;
    the caller scores each and keeps the best, so a cut can never lower a score.
    """
    body = _MARKUP.sub("", quote).strip().strip(_QUOTE_MARKS).strip()
    variants = [body]
    trailing = (
        _TRAILING_FRAME.search(body) if any(word in body for word in _TRAILING_WORDS) else None
    )
    if trailing and trailing.start() > 0:
        variants.append(body[: trailing.start()].rstrip())
    for text in list(variants):
        labels = [m for m in _LEADING_FRAME.finditer(text) if m.start() < _FRAME_WINDOW]
        for match in {labels[0].end(), labels[-1].end()} if labels else ():
            rest = text[match:].strip().strip(_QUOTE_MARKS).strip()
            if rest:
                variants.append(rest)
    unique = list(dict.fromkeys(filter(normalize_for_compare, variants)))
    return unique or [body]
