"""The quote finder's cheaper tests give what the regular expressions they stand for give:
word lists for one-word patterns, a first-character check before a pattern."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from extractor import quotes

# Pieces the finders look for, and the characters next to them that change a match.
_PIECES = [
    *("。", "！", "？", "；", "!", "?", ";", "\n", "，", ",", "：", ":", " ", "\u3000", "\xa0"),
    *("【", "】", "[", "]", "（", "）", "(", ")", "、", ".", "．", "1", "12", "３", "٣", "a"),
    *("一", "三", "十", "罪", "诈骗罪", "盗窃", "按照", "依照", "遵照", "依据", "根据", "您"),
    *("如果您", "如果你", "你", "我", "因此", "所以", "建议", "规定", "劳动", "合同", "法"),
]
_texts = st.lists(st.sampled_from(_PIECES), max_size=60).map("".join)

# The patterns as they were before the cheaper tests.
_ANSWER_VOICE_RE = re.compile(r"如果您|如果你|您|你|我|因此|所以|建议")
_INSTRUCTION_RE = re.compile(r"(?:按照|依照|遵照)$")
_APPLYING_RE = re.compile(r"(?:按照|依照|遵照|依据|根据)$")
_NOT_CONTENT_RE = re.compile(
    r"(?:的|等|中|和|及|与|或|也|都|则|所|之|关于|是|就|还|并|才|来|里|内|"
    r"即|进行|作出|相关|有关|规定|提到|指出|明确|要求|来看|而言|可知|可以看出|[第、，,。；;：:！？!?）)】\]”\"'])"
)
_RECITAL_SIGNS_RE = re.compile(r"[：:]|[（(][一二三四五六七八九十]{1,3}[）)]")


@given(_texts, st.data())
def test_word_tests_match_their_patterns(text: str, data: st.DataObject) -> None:
    """startswith/endswith over the word lists agree with the one-word patterns."""
    at = data.draw(st.integers(0, len(text)))
    window = max(0, at - 2)
    assert text.startswith(quotes._ANSWER_VOICE, at) == bool(_ANSWER_VOICE_RE.match(text, at))
    assert text.endswith(quotes._INSTRUCTION, window, at) == bool(
        _INSTRUCTION_RE.search(text, window, at)
    )
    assert text.endswith(quotes._APPLYING, window, at) == bool(
        _APPLYING_RE.search(text, window, at)
    )


# The words after the number that are the answer's own, pieces of them, and what is not one.
_NOT_CONTENT_PIECES = [*quotes._NOT_CONTENT, "可以", "可", "关", "进", "来", "x", "【", "[", "“"]


@given(st.lists(st.sampled_from(_NOT_CONTENT_PIECES), max_size=4).map("".join), st.data())
def test_not_content_words_match_their_pattern(text: str, data: st.DataObject) -> None:
    """str.startswith over _NOT_CONTENT agrees with the pattern it stands for."""
    at = data.draw(st.integers(0, len(text)))
    assert text.startswith(quotes._NOT_CONTENT, at) == bool(_NOT_CONTENT_RE.match(text, at))


_SENTENCE_END_RE = re.compile(r"[。！？!?]")


@given(_texts, st.data())
def test_first_sentence_end_found_alike(text: str, data: st.DataObject) -> None:
    """The one search for a sentence end or recital sign finds the sentence end where the
    search for it, then for a recital sign before it, did."""
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    expected = None
    sentence_end = _SENTENCE_END_RE.search(text, start, end)
    if sentence_end and not _RECITAL_SIGNS_RE.search(text, start, sentence_end.start()):
        expected = sentence_end.start()
    assert quotes._first_sentence_end(text, start, end) == expected


@given(_texts, st.data())
def test_first_character_checks_keep_the_matches(text: str, data: st.DataObject) -> None:
    """A list line or heading is found exactly where the pattern alone finds one."""
    at = data.draw(st.integers(0, len(text)))
    assert quotes._opens_list(text, at) == (quotes._LIST_LINE_RE.match(text, at) is not None)
    heading = quotes._HEADING_RE.match(text, at)
    assert quotes._heading_end(text, at) == (heading.end() if heading else at)
