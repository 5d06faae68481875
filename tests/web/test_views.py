"""Pure parts of the web edge: the character diff and the answer cut into badge segments."""

from __future__ import annotations

import json
from datetime import date

import pytest
from hypothesis import given

from legaldb import StatuteRepository
from tests.strategies import chinese_sentences
from tests.web.test_api import _real_answers
from verifier import check
from web.annotate import KINDS, segments
from web.views import diff_parts


@given(chinese_sentences.map("".join), chinese_sentences.map("".join))
def test_diff_rebuilds_both_texts(old: str, new: str) -> None:
    """equal + delete parts spell the old text; equal + insert parts spell the new one."""
    parts = diff_parts(old, new)
    assert "".join(p.text for p in parts if p.op != "insert") == old
    assert "".join(p.text for p in parts if p.op != "delete") == new
    assert all(p.text for p in parts)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("诉讼时效期间为二年", "诉讼时效期间为三年",
         [("equal", "诉讼时效期间为"), ("delete", "二"), ("insert", "三"), ("equal", "年")]),
        ("应当承担责任", "应当依法承担责任",
         [("equal", "应当"), ("insert", "依法"), ("equal", "承担责任")]),
        ("同一文本", "同一文本", [("equal", "同一文本")]),
    ],
    ids=["replace", "insert", "same"],
)  # fmt: skip
def test_diff_examples(old: str, new: str, expected: list[tuple[str, str]]) -> None:
    """A changed number, an inserted word, no change."""
    assert [(p.op, p.text) for p in diff_parts(old, new)] == expected


def test_segments_cover_real_answers(statute_repository: StatuteRepository) -> None:
    """On real answers the segments spell the answer, and every citation has its badge."""
    for item in _real_answers(40):
        answer = item["answer"]
        result = check(answer, statute_repository, date(2023, 8, 1))
        cut = segments(answer, result)
        assert "".join(s.text for s in cut) == answer, json.dumps(item["id"])
        badges = [b for s in cut for b in s.badges]
        assert sorted(b.index for b in badges) == list(range(len(result.verdicts)))
        for badge in badges:
            assert badge.label in KINDS and badge.kind == KINDS[badge.label]
        for segment in (s for s in cut if s.badges):
            first = segment.badges[0].verdict.citation
            assert segment.text and segment.text in answer[first.start : first.end]
