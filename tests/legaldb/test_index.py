"""A version's packed article structure: each article found by (number, suffix), made once."""

from __future__ import annotations

import dataclasses
import marshal
from datetime import date
from typing import Any

import pytest

from legaldb.index import Packed, PackedArticles, StatuteIndex
from legaldb.models import ArticleInfo, LawInfo, Lookup, RepealInfo, VersionInfo

ROWS = [  # (number, suffix, label, deleted, item_counts, chapter_path), not in order
    (3, None, "第三条", False, (0, 2), ("第一章 总则",)),
    (1, None, "第一条", False, (0,), ("第一章 总则",)),
    (2, "之二", "第二条之二", False, (0,), ("第一章 总则",)),
    (2, None, "第二条", True, (0,), ("第一章 总则",)),
    (2, "之一", "第二条之一", False, (3,), ("第一章 总则",)),
    (120, None, "第一百二十条", False, (0, 0, 0), ("第二编", "第五章 罚则")),
]


def _pack(
    rows: list[tuple[Any, ...]], labels: dict[Any, str] | None = None
) -> tuple[Packed, tuple[Any, ...], dict[Any, str]]:
    """The rows packed as the index packs one version: (packed, shapes, labels by number),
    labels being the table the index's earlier versions filled (none: empty)."""
    shape_ids: dict[Any, int] = {}
    labels = {} if labels is None else labels
    return PackedArticles.pack(rows, shape_ids, labels), tuple(shape_ids), labels


def _unpacked(
    version_id: int, rows: list[tuple[Any, ...]], labels: dict[Any, str] | None = None
) -> PackedArticles:
    """Packed, then as a process reads it back from the snapshot (marshalled and loaded)."""
    packed, shapes, label_table = marshal.loads(marshal.dumps(_pack(rows, labels)))
    return PackedArticles(version_id, packed, shapes, label_table)


def test_every_article_is_found_with_its_structure() -> None:
    """Each row comes back as the ArticleInfo it describes, suffixes told apart."""
    articles = _unpacked(7, ROWS)
    for number, suffix, label, deleted, item_counts, chapter_path in ROWS:
        assert articles.get((number, suffix)) == ArticleInfo(
            7, number, suffix, label, deleted, len(item_counts), item_counts, chapter_path
        )


def test_absent_articles_are_none() -> None:
    """Numbers between, beyond and before the articles, and unknown suffixes, are not found."""
    articles = _unpacked(7, ROWS)
    for key in [(0, None), (4, None), (119, None), (121, None), (2, "之三"), (1, "之一")]:
        assert articles.get(key) is None


def test_a_version_labelled_otherwise_keeps_its_own_labels() -> None:
    """Labels come from the index's table of labels by number when a version's agree with it,
    from the version itself when any differs (an earlier version labelled a number otherwise)."""
    table: dict[Any, str] = {}
    assert _pack(ROWS, table)[0][3] is None  # the first version fills the table
    assert table[120] == "第一百二十条" and table[2, "之一"] == "第二条之一"
    relabelled = [(n, s, f"({label})", *rest) for n, s, label, *rest in ROWS]
    assert _pack(relabelled, dict(table))[0][3] is not None
    articles = _unpacked(8, relabelled, dict(table))
    for number, suffix, label, *_ in relabelled:
        found = articles.get((number, suffix))
        assert found is not None and found.label == label
    assert _unpacked(9, ROWS, dict(table)).get((120, None)).label == "第一百二十条"  # type: ignore[union-attr]


def test_the_same_article_is_the_same_object() -> None:
    """An article asked for twice is made once."""
    articles = _unpacked(7, ROWS)
    assert articles.get((2, "之一")) is articles.get((2, "之一"))


def test_a_version_without_suffixes_or_articles() -> None:
    """Plain numbering needs no suffix list; a version without articles finds nothing."""
    plain = [row for row in ROWS if row[1] is None]
    assert _pack(plain)[0][1] is None
    assert _unpacked(1, plain).get((120, None)) is not None
    assert _unpacked(1, plain).get((2, "之一")) is None
    assert _unpacked(2, []).get((1, None)) is None


def test_a_version_numbered_without_gaps() -> None:
    """Articles 1 … n (most versions, kept without an array of numbers): each found by its
    number with its own label and structure; 0, n + 1, negatives and suffixes are not."""
    dense = [row for row in ROWS if row[1] is None and row[0] <= 3]  # 1, 2 (deleted), 3
    articles = _unpacked(5, dense)
    assert articles.numbers is None
    for number, _, label, deleted, item_counts, chapter_path in dense:
        assert articles.get((number, None)) == ArticleInfo(
            5, number, None, label, deleted, len(item_counts), item_counts, chapter_path
        )
    for key in [(0, None), (4, None), (-1, None), (2, "之一")]:
        assert articles.get(key) is None
    starting_at_two = _unpacked(5, [(n + 1, *rest) for n, *rest in dense])
    assert starting_at_two.numbers is not None
    assert starting_at_two.get((1, None)) is None
    assert starting_at_two.get((4, None)) is not None


def test_made_answers_are_the_dataclasses_they_stand_for() -> None:
    """The hot path's answers (a Timeline's lookups: the article made from its shape and
    label, the Lookup around it, the answer without an article) equal the constructors' (same
    type, hash and repr, still frozen)."""
    law = LawInfo(1, "中华人民共和国公司法", "公司法", "法律")
    version = VersionInfo(2, 1, "2018年修正", None, date(2018, 10, 26), None, 218, True)
    repeal = RepealInfo(1, date(2024, 7, 1), "公司法（2023年修订）第二百六十六条", None)
    article_values = (2, 16, None, "第十六条", False, 3, (0, 0, 0), ("第一章 总则",))
    index = StatuteIndex()
    index.add_laws([law], [])
    index.add_versions([version])
    index.add_repeals([repeal])
    index.add_article_rows(
        [(2, n, None, f"第{n}条", False, (0,), ()) for n in range(1, 16)]
        + [(2, *article_values[1:5], article_values[6], article_values[7])]
    )
    index = StatuteIndex.from_plain(marshal.loads(marshal.dumps(index.to_plain())))
    timeline = index.timeline(1)
    in_force = timeline.lookup(date(2020, 1, 1).toordinal(), 16, None)
    before = timeline.lookup(date(2000, 1, 1).toordinal(), 16, None)
    missing = timeline.lookup(date(2020, 1, 1).toordinal(), 17, None)
    assert in_force.article is before.article  # one article, two answers
    assert missing is timeline.lookup(date(2021, 1, 1).toordinal(), 99, None)  # shared
    law, version, repeal = index.laws[1], index.version_by_id[2], index.repeals[1]
    for made, built in [
        (in_force.article, ArticleInfo(*article_values)),
        (in_force, Lookup(law, version, ArticleInfo(*article_values), repeal, version)),
        (before, Lookup(law, None, ArticleInfo(*article_values), repeal, version)),
        (missing, Lookup(law, version, None, repeal, version)),
    ]:
        assert type(made) is type(built)
        assert made == built
        assert hash(made) == hash(built)
        assert repr(made) == repr(built)
        # frozen: Python 3.11 raises TypeError for a slots dataclass (its __setattr__'s
        # super() names the class before slots were added), later ones FrozenInstanceError
        for answer in (made, built):
            with pytest.raises((dataclasses.FrozenInstanceError, TypeError)):
                answer.version_id = 3  # type: ignore[misc,union-attr]


@pytest.mark.parametrize(
    "numbers",
    [[1, 2, 3, 4], [1, 2, 5, 6], [3, 4, 5], [2, 3, 4, 5, 6, 7], [0, 1, 2], [7]],
    ids=["dense", "gap", "late start", "shifted by one", "from zero", "one article"],
)
def test_plain_numbering_finds_exactly_its_numbers(numbers: list[int]) -> None:
    """Article n is found where it is, whether or not the numbering runs 1, 2, 3 … without gaps."""
    rows = [(n, None, f"第{n}条", False, (0,), ()) for n in numbers]
    articles = _unpacked(4, rows)
    for number in range(-1, max(numbers) + 3):
        found = articles.get((number, None))
        if number in numbers:
            assert found is not None and (found.number, found.label) == (number, f"第{number}条")
        else:
            assert found is None
