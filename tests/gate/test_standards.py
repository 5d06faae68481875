"""The quality standards, each passed and failed, with the evidence they point at."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate import Policy, assess
from gate.models import GateResult, Standard
from gate.standards import conclusions, sentence_at, sentences
from tests.gate.builders import (
    CIVIL_CODE,
    checked,
    citation,
    good,
    invented,
    mismatch,
    repealed,
    verdict,
)
from verifier.models import NumberConflict, Verdict


def standard(result: GateResult, name: str) -> Standard:
    return next(s for s in result.standards if s.name == name)


def at(answer: str, surface: str) -> int:
    """Where surface stands in answer (the test's citations sit on real text)."""
    index = answer.index(surface)
    return index


def test_all_seven_standards_are_reported_in_order() -> None:
    result = assess(checked(good(577)), "《中华人民共和国民法典》第五百七十七条规定应当赔偿。")
    assert [s.name for s in result.standards] == [
        "verifiable_rate",
        "no_invented_articles",
        "no_repealed_as_current",
        "no_quote_mismatch",
        "no_number_conflict",
        "conclusions_have_basis",
        "tail_coverage",
    ]
    assert all(s.passed for s in result.standards)


def test_sentences_and_paragraphs() -> None:
    text = "第一句。第二句！\n  第三句？ \n\n第四句"
    assert [text[s:e] for s, e, _ in sentences(text)] == [
        "第一句。",
        "第二句！",
        "第三句？",
        "第四句",
    ]
    assert [p for _, _, p in sentences(text)] == [0, 0, 9, 18]


def _sentences_line_by_line(text: str) -> list[tuple[int, int, int]]:
    """The definition: each line's sentences (up to their end marks), stripped of spaces."""
    found = []
    for line in re.finditer(r"[^\n]+", text):
        for sentence in re.finditer(r"[^。！？!?]+[。！？!?]*", line.group()):
            piece = sentence.group()
            start = line.start() + sentence.start() + len(piece) - len(piece.lstrip())
            end = line.start() + sentence.end() - (len(piece) - len(piece.rstrip()))
            if start < end:
                found.append((start, end, line.start()))
    return found


@given(st.text(alphabet="甲乙 \t\u3000\n\r。！？!?，", max_size=40))
def test_sentences_are_each_lines_sentences(text: str) -> None:
    """sentences() over the whole text equals splitting it line by line, then each line."""
    assert sentences(text) == _sentences_line_by_line(text)


@given(st.text(alphabet="甲乙 \t\u3000\n。！？，", max_size=40), st.data())
def test_sentence_at_is_the_first_sentence_holding_the_start(
    text: str, data: st.DataObject
) -> None:
    """The bisection finds what a scan of the sentences in order finds (a citation's start
    inside a sentence, between two, or in stripped blanks), else the citation's own text."""
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    bounds = sentences(text)
    scanned = next((text[s:e] for s, e, _ in bounds if s <= start < e), text[start:end])
    assert sentence_at(text, bounds, start, end) == scanned


def test_a_conclusion_is_supported_by_a_citation_in_its_paragraph() -> None:
    answer = (
        "回答：您可以起诉对方。\n"
        "法律依据：根据《中华人民共和国民法典》第五百七十七条，对方应当承担违约责任。此外，对方应当赔偿。\n"
        "这是一句说明。"
    )
    start = at(answer, "《中华人民共和国民法典》")
    found = conclusions(answer, [(start, start + 20)], Policy())
    assert [(c.text, c.supported) for c in found] == [
        ("回答：您可以起诉对方。", False),
        ("法律依据：根据《中华人民共和国民法典》第五百七十七条，对方应当承担违约责任。", True),
        ("此外，对方应当赔偿。", True),
    ]


def test_conclusions_have_basis_lists_each_unsupported_sentence() -> None:
    answer = "您有权解除合同。\n根据《中华人民共和国民法典》第五百七十七条，对方应当承担违约责任。"
    start = at(answer, "《中华人民共和国民法典》")
    result = assess(checked(good(577, start)), answer)
    basis = standard(result, "conclusions_have_basis")
    assert not basis.passed
    assert [(e.text, e.start, e.end) for e in basis.evidence] == [("您有权解除合同。", 0, 8)]


def test_tail_coverage_fails_when_the_end_of_a_long_answer_is_unsupported() -> None:
    cited = "根据《中华人民共和国民法典》第五百七十七条，当事人应当承担违约责任。\n"
    filler = "这一段只是背景说明，没有结论。\n" * 25
    drift = "另外，您还可以要求对方赔偿精神损失。\n"
    answer = cited + filler + drift
    result = assess(checked(good(577, 2)), answer)
    tail = standard(result, "tail_coverage")
    assert len(answer) >= Policy().long_answer_chars
    assert not tail.passed
    assert [e.text for e in tail.evidence] == ["另外，您还可以要求对方赔偿精神损失。"]
    assert tail.evidence[0].note is not None and tail.evidence[0].note.startswith("at 9")

    reordered = drift + filler + cited
    start = at(reordered, "《中华人民共和国民法典》")
    assert standard(assess(checked(good(577, start)), reordered), "tail_coverage").passed


def test_tail_coverage_does_not_apply_to_short_answers() -> None:
    result = assess(checked(), "您可以起诉。")
    tail = standard(result, "tail_coverage")
    assert tail.passed
    assert tail.summary.startswith("not applicable")


@pytest.mark.parametrize(
    ("answer", "hint", "passed"),
    [
        ("依照《中华人民共和国合同法》第一百零七条，对方应当赔偿。", None, False),
        ("原《中华人民共和国合同法》第一百零七条曾有规定。", "原", True),
        ("《中华人民共和国合同法》第一百零七条（已废止）曾有规定。", None, True),
    ],
    ids=["cited_as_current", "version_qualifier", "said_to_be_repealed"],
)
def test_no_repealed_as_current(answer: str, hint: str | None, passed: bool) -> None:
    start = at(answer, "《中华人民共和国合同法》")
    old = repealed(start)
    cited = citation("中华人民共和国合同法", 107, start=start, version_hint=hint)
    old = verdict(cited, "repealed", facts=old.facts)
    result = assess(checked(old), answer)
    assert standard(result, "no_repealed_as_current").passed is passed
    assert not standard(result, "verifiable_rate").passed


@pytest.mark.parametrize(
    ("name", "failed"),
    [
        ("no_invented_articles", invented(1289)),
        ("no_quote_mismatch", mismatch(577)),
        (
            "no_number_conflict",
            verdict(
                citation(CIVIL_CODE, 577),
                conflicts=(NumberConflict("multiple", 3.0, (2.0,), "三倍", ("二倍",)),),
            ),
        ),
    ],
    ids=["invented", "quote", "number"],
)
def test_failure_standards_point_at_the_citation(name: str, failed: Verdict) -> None:
    result = assess(checked(failed, good(1, 40)), "答" * 60)
    found = standard(result, name)
    assert not found.passed
    assert [(e.text, e.start) for e in found.evidence] == [(failed.citation.surface, 0)]
    assert found.evidence[0].note  # the fact that explains it
    others = [s for s in result.standards if s.name in {
        "no_invented_articles", "no_quote_mismatch", "no_number_conflict"} - {name}]  # fmt: skip
    assert all(s.passed for s in others)
