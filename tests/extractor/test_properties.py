"""Properties of extraction over generated text (Hypothesis)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from extractor import Lexicon, extract
from extractor.candidates import CANDIDATE_RE, find_candidates, scan_pattern_for
from extractor.grammar import parse_law, parse_run
from tests.extractor.conftest import ALIASES, LAW_NAMES
from tests.strategies import citation_like_text, plain_chinese, rendered_citations

LEXICON = Lexicon.from_mapping({**{name: name for name in LAW_NAMES}, **ALIASES})
PLAIN_NAMES = tuple(name for name in LAW_NAMES if "《" not in name)
BOUNDARIES = st.sampled_from(["。", "，", "\n", "：", " ", "；"])
any_text = st.one_of(st.text(max_size=200), citation_like_text)


@given(any_text, st.booleans())
def test_never_raises(text: str, with_lexicon: bool) -> None:
    """Extraction returns a list of citations for any text, with or without a lexicon."""
    assert isinstance(extract(text, LEXICON if with_lexicon else None), list)


@given(citation_like_text)
def test_grammar_accepts_every_candidate(text: str) -> None:
    """Every chain span the pre-scan cuts out parses with the grammar: its law part (where it
    has one) and its run of references."""
    for candidate in find_candidates(text, LEXICON):
        if candidate.kind == "chain":
            law_part = text[candidate.start : candidate.run_start]
            if law_part:
                parse_law(law_part)
            assert parse_run(text[candidate.run_start : candidate.end]).references


@given(any_text)
def test_spans_lie_in_the_text(text: str) -> None:
    """Every surface, quote and claim is the text between its own start and end."""
    for citation in extract(text, LEXICON):
        assert 0 <= citation.start < citation.end <= len(text)
        assert text[citation.start : citation.end] == citation.surface
        for span in (citation.quote, citation.claim):
            if span is not None:
                assert 0 <= span.start <= span.end <= len(text)
                assert text[span.start : span.end] == span.text


@given(rendered_citations(PLAIN_NAMES), plain_chinese, plain_chinese, BOUNDARIES, BOUNDARIES)
def test_rendered_citation_is_found(
    rendered: tuple[str, dict[str, object]],
    before: str,
    after: str,
    left: str,
    right: str,
) -> None:
    """A citation written inside prose comes back with its law, numbers and surface."""
    surface, fields = rendered
    text = before + left + surface + right + after
    (citation,) = extract(text, LEXICON)
    found = {
        "law": citation.law,
        "article": citation.article,
        "article_suffix": citation.article_suffix,
        "paragraph": citation.paragraph,
        "item": citation.item,
        "surface": citation.surface,
    }
    assert found == fields
    assert citation.start == len(before + left)
    assert not citation.implicit


# Pieces of citations, with and without the words a title tail (…的解释, 实施细则, 若干问题的规定)
# and a division or part of a code (第二章, 合同编) need.
_SCAN_PIECES = st.sampled_from(
    [
        *(
            "《劳动合同法》",
            "《民法典》",
            "《关于《劳动法》的决定》",
            "“劳动法”",
            "劳动法",
            "民法典",
        ),
        *("第", "一", "十", "二", "条", "款", "项", "之一", "（一）", "、", "，", "和", "至", "-"),
        *("本法", "该法", "同法", "上述规定", "的", "中", "【", "总则", "<b>", " ", "\n", "（注）"),
        *("若干问题的", "规定", "解释", "的解释", "司法解释", "实施", "细则", "条例", "办法"),
        *("编", "章", "节", "合同编", "第三章", "物权", "-婚姻家庭编", "规定如下"),
    ]
)


def _scan(pattern: re.Pattern[str], text: str) -> list[tuple[int, ...]]:
    spans = []
    position = 0
    while (match := pattern.search(text, position)) is not None:
        spans.append(sum((match.span(group) for group in range(1, pattern.groups + 1)), ()))
        position = match.end(1)
    return spans


@given(st.lists(_SCAN_PIECES, max_size=16).map("".join))
def test_scan_pattern_for_a_text_finds_what_the_full_one_does(text: str) -> None:
    """The pre-scan's pattern for a text (without the title tails or divisions that cannot
    match in it) finds the same candidates as CANDIDATE_RE, every group's span included."""
    assert _scan(scan_pattern_for(text), text) == _scan(CANDIDATE_RE, text)


@given(st.lists(_SCAN_PIECES, max_size=16).map("".join))
def test_no_candidate_starts_after_the_last_article_or_title_mark(text: str) -> None:
    """No candidate starts after the last 第 or 《 of a text (find_candidates stops its scan
    there): a search of the scan's patterns from just after it, which tries every later
    start, finds nothing."""
    last = max(text.rfind("第"), text.rfind("《"))
    assert scan_pattern_for(text).search(text, last + 1) is None
    assert CANDIDATE_RE.search(text, last + 1) is None
    assert all(candidate.start <= last for candidate in find_candidates(text, LEXICON))
