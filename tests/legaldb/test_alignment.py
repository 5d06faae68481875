"""Aligning the articles of two versions by their texts."""

from __future__ import annotations

from hypothesis import given

from legaldb.alignment import ALIGN_THRESHOLD, align_versions
from tests.legaldb.factories import NEW_COMPANY_ARTICLES, OLD_COMPANY_ARTICLES, article
from tests.strategies import article_texts


def _by_old(pairs):  # type: ignore[no-untyped-def]
    return {(p.old_number, p.old_suffix): p for p in pairs}


def test_company_law_revision_is_aligned() -> None:
    """Unchanged, renumbered, rewritten and deleted articles each get the right answer."""
    pairs = _by_old(align_versions(OLD_COMPANY_ARTICLES, NEW_COMPANY_ARTICLES))
    # 第二条 unchanged, same number
    assert (pairs[2, None].new_number, pairs[2, None].similarity, pairs[2, None].changed) == (
        2,
        1.0,
        False,
    )
    # 第三条 moved verbatim to 第四条 (a new 第三条 was inserted)
    assert (pairs[3, None].new_number, pairs[3, None].changed) == (4, False)
    # 第一条 and 第五条 rewritten: matched above the threshold, marked changed
    for number in (1, 5):
        assert pairs[number, None].new_number == number
        assert pairs[number, None].changed
        assert ALIGN_THRESHOLD <= pairs[number, None].similarity < 1.0
    # 第四条 was deleted in the old version: no successor is derived from it
    assert (4, None) not in pairs


def test_unrelated_texts_are_not_paired() -> None:
    """An article with no similar article in the new version gets no pair."""
    old = (article(1, "国家实行劳动者每日工作时间不超过八小时的工时制度。"),)
    new = (article(1, "船舶所有人可以依照本章规定限制赔偿责任。"),)
    assert align_versions(old, new) == []


def test_identical_text_prefers_the_nearest_number() -> None:
    """When a text occurs twice in the new version, the closer number wins."""
    text = "本法自公布之日起施行。"
    old = (article(9, text),)
    new = (article(2, text), article(10, text))
    (pair,) = align_versions(old, new)
    assert pair.new_number == 10


@given(article_texts)
def test_a_version_aligns_with_itself(texts: list[str]) -> None:
    """Aligning a version with itself pairs each article with its own text, similarity 1."""
    articles = tuple(article(n, text) for n, text in enumerate(texts, start=1))
    pairs = align_versions(articles, articles)
    assert len(pairs) == len(articles)
    for pair in pairs:
        assert pair.similarity == 1.0
        assert not pair.changed
        assert articles[pair.new_number - 1].text == articles[pair.old_number - 1].text
