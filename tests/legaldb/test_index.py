"""The packed article structure: each article found by (number, suffix), made once."""

from __future__ import annotations

import dataclasses
import marshal
from datetime import date
from typing import Any

import pytest
from hypothesis import given as hypothesis_given
from hypothesis import strategies as st

from legaldb.index import _NEVER, NOTHING, Lookups, StatuteIndex
from legaldb.models import ArticleInfo, LawInfo, Lookup, RepealInfo, VersionInfo

ROWS = [  # (number, suffix, label, deleted, item_counts, chapter_path), not in order
    (3, None, "第三条", False, (0, 2), ("第一章 总则",)),
    (1, None, "第一条", False, (0,), ("第一章 总则",)),
    (2, "之二", "第二条之二", False, (0,), ("第一章 总则",)),
    (2, None, "第二条", True, (0,), ("第一章 总则",)),
    (2, "之一", "第二条之一", False, (3,), ("第一章 总则",)),
    (120, None, "第一百二十条", False, (0, 0, 0), ("第二编", "第五章 罚则")),
]


def _index(
    version_id: int,
    rows: list[tuple[Any, ...]],
    earlier: dict[int, list[tuple[Any, ...]]] | None = None,
) -> StatuteIndex:
    """An index holding the rows as one version's articles, after the `earlier` versions' rows
    (which fill the table of labels by number first), as a process reads it back from the
    snapshot (marshalled and loaded)."""
    index = StatuteIndex()
    for earlier_id, earlier_rows in (earlier or {}).items():
        index.add_article_rows((earlier_id, *row) for row in earlier_rows)
    index.add_article_rows((version_id, *row) for row in rows)
    return StatuteIndex.from_plain(marshal.loads(marshal.dumps(index.to_plain())))


def test_every_article_is_found_with_its_structure() -> None:
    """Each row comes back as the ArticleInfo it describes, suffixes told apart."""
    index = _index(7, ROWS)
    for number, suffix, label, deleted, item_counts, chapter_path in ROWS:
        assert index.article(7, number, suffix) == ArticleInfo(
            7, number, suffix, label, deleted, len(item_counts), item_counts, chapter_path
        )
    assert index.article_total() == len(ROWS)


def test_absent_articles_are_none() -> None:
    """Numbers between, beyond and before the articles, and unknown suffixes, are not found."""
    index = _index(7, ROWS)
    for key in [(0, None), (4, None), (119, None), (121, None), (2, "之三"), (1, "之一")]:
        assert index.article(7, *key) is None
    assert index.article(8, 1, None) is None  # no such version


def test_a_version_labelled_otherwise_keeps_its_own_labels() -> None:
    """Labels come from the index's table of labels by number when a version's agree with it,
    from the version itself when any differs (an earlier version labelled a number otherwise)."""
    relabelled = [(n, s, f"({label})", *rest) for n, s, label, *rest in ROWS]
    index = _index(8, relabelled, earlier={7: ROWS})
    assert index.layouts[7][4] is None  # the first version fills the table
    assert index.labels[120] == "第一百二十条" and index.labels[2, "之一"] == "第二条之一"
    assert index.layouts[8][4] is not None
    for version_id, rows in [(8, relabelled), (7, ROWS)]:
        for number, suffix, label, *_ in rows:
            found = index.article(version_id, number, suffix)
            assert found is not None and found.label == label


def test_the_same_article_is_the_same_object() -> None:
    """An article asked for twice is made once."""
    index = _index(7, ROWS)
    assert index.article(7, 2, "之一") is index.article(7, 2, "之一")


def test_a_version_without_suffixes_or_articles() -> None:
    """Plain numbering needs no suffix list; a version without articles finds nothing."""
    plain = [row for row in ROWS if row[1] is None]
    index = _index(1, plain)
    assert index.layouts[1][3] is None
    assert index.article(1, 120, None) is not None
    assert index.article(1, 2, "之一") is None
    assert _index(2, []).article(2, 1, None) is None


def test_a_version_numbered_without_gaps() -> None:
    """Articles 1 … n (most versions, kept without an array of numbers): each found by its
    number with its own label and structure; 0, n + 1, negatives and suffixes are not."""
    dense = [row for row in ROWS if row[1] is None and row[0] <= 3]  # 1, 2 (deleted), 3
    index = _index(5, dense)
    assert index.layouts[5][2] == b""
    for number, _, label, deleted, item_counts, chapter_path in dense:
        assert index.article(5, number, None) == ArticleInfo(
            5, number, None, label, deleted, len(item_counts), item_counts, chapter_path
        )
    for key in [(0, None), (4, None), (-1, None), (2, "之一")]:
        assert index.article(5, *key) is None
    starting_at_two = _index(5, [(n + 1, *rest) for n, *rest in dense])
    assert starting_at_two.layouts[5][2] != b""
    assert starting_at_two.article(5, 1, None) is None
    assert starting_at_two.article(5, 4, None) is not None


def test_versions_lie_one_after_the_other() -> None:
    """Several versions (dense, gapped, with suffixes) in one array: each finds its own
    articles, whichever is asked first, and an article of one is never another's."""
    gapped = [(n, None, f"第{n}条", False, (0,) * n, ()) for n in (2, 5, 9)]
    dense = [(n, None, f"第{n}条", n == 2, (1,), ("第一章",)) for n in (1, 2, 3)]
    index = _index(3, ROWS, earlier={1: gapped, 2: dense})
    for version_id, rows in [(3, ROWS), (1, gapped), (2, dense)]:
        for number, suffix, label, deleted, item_counts, chapter_path in reversed(rows):
            assert index.article(version_id, number, suffix) == ArticleInfo(
                version_id, number, suffix, label, deleted, len(item_counts), item_counts,
                chapter_path,
            )  # fmt: skip
    assert index.article_total() == len(ROWS) + len(gapped) + len(dense)


def test_made_answers_are_the_dataclasses_they_stand_for() -> None:
    """The hot path's answers (Lookups.lookup: the article made from its shape and
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
    lookup = Lookups(index).lookup
    in_force = lookup("中华人民共和国公司法", 16, None, date(2020, 1, 1))
    before = lookup("中华人民共和国公司法", 16, "", date(2000, 1, 1))
    missing = lookup("中华人民共和国公司法", 17, None, date(2020, 1, 1))
    assert in_force.article is before.article  # one article, two answers
    assert in_force.article is index.article(2, 16, None)  # the one the index made
    assert missing is lookup("中华人民共和国公司法", 99, None, date(2021, 1, 1))  # shared
    assert lookup("中华人民共和国不存在法", 1, None, date(2020, 1, 1)) is NOTHING
    assert lookup("中华人民共和国不存在法", 1, None, date(2020, 1, 1)) is NOTHING  # kept
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
    index = _index(4, rows)
    for number in range(-1, max(numbers) + 3):
        found = index.article(4, number, None)
        if number in numbers:
            assert found is not None and (found.number, found.label) == (number, f"第{number}条")
        else:
            assert found is None


@pytest.mark.parametrize(
    "version",
    [
        VersionInfo(2, 1, "2018年修正", None, date(2018, 10, 26), None, 218, True),
        VersionInfo(
            3,
            1,
            "2023年修订",
            date(2023, 12, 29),
            date(2024, 7, 1),
            date(2025, 1, 1),
            266,
            True,
            "lawrefbook:公司法.md",
            "next_day",
            ("lawrefbook:公司法.md", "flk:42"),
        ),
    ],
    ids=["defaults", "every field"],
)
def test_the_snapshot_gives_the_laws_and_versions_it_was_given(version: VersionInfo) -> None:
    """Read back from a snapshot, a law and a version are instances of their dataclass, equal,
    hashed, shown and frozen as the ones the index held."""
    law = LawInfo(
        1, "中华人民共和国公司法", "公司法", "法律", "全国人民代表大会常务委员会", ("公司法",)
    )
    index = StatuteIndex()
    index.add_laws([law], [(1, "公司法", "公司法"), (1, "新公司法", "新公司法")])
    index.add_versions([version])
    held = [index.laws[1], index.version_by_id[version.id]]
    index = StatuteIndex.from_plain(marshal.loads(marshal.dumps(index.to_plain())))
    for made, given in zip([index.laws[1], index.version_by_id[version.id]], held, strict=True):
        assert type(made) is type(given)
        assert made == given
        assert hash(made) == hash(given)
        assert repr(made) == repr(given)
        with pytest.raises((dataclasses.FrozenInstanceError, TypeError)):
            made.id = 9  # type: ignore[misc]


def _sorted_versions(index: StatuteIndex, versions: list[VersionInfo]) -> StatuteIndex:
    """What add_versions gave before laws of one version were registered apart: every law's
    versions sorted (the reference)."""
    by_law: dict[int, list[VersionInfo]] = {}
    for version in versions:
        by_law.setdefault(version.law_id, []).append(version)
        index.version_by_id[version.id] = version
    for law_id, items in by_law.items():
        items.sort(key=lambda v: (v.effective_from or v.promulgated or date.min, v.id))
        index.versions[law_id] = tuple(items)
        dated = tuple(
            sorted(
                (v for v in items if v.effective_from is not None),
                key=lambda v: (v.effective_from, v.id),
            )
        )
        index.dated[law_id] = dated
        index.starts[law_id] = [v.effective_from.toordinal() for v in dated if v.effective_from]
        index.ends[law_id] = tuple(
            [v.effective_to.toordinal() if v.effective_to else _NEVER for v in dated]
        )
    return index


_DAYS = st.none() | st.dates(date(1950, 1, 1), date(2030, 12, 31))


@hypothesis_given(
    st.lists(
        st.tuples(st.integers(1, 6), _DAYS, _DAYS, _DAYS), max_size=12
    )  # law, promulgated, from, to
)
def test_add_versions_registers_as_sorting_every_law(rows: list[tuple[Any, ...]]) -> None:
    """Laws of one version or several, dated or not: the same versions, dated versions,
    starts and ends, in the same order, as sorting every law's versions gives."""
    versions = [
        VersionInfo(number, law_id, f"v{number}", promulgated, start, end, 1, True)
        for number, (law_id, promulgated, start, end) in enumerate(rows, 1)
    ]
    given_index = StatuteIndex()
    given_index.add_versions(iter(versions))
    expected = _sorted_versions(StatuteIndex(), versions)
    for field in ("version_by_id", "versions", "dated", "starts", "ends"):
        got, want = getattr(given_index, field), getattr(expected, field)
        assert list(got.items()) == list(want.items()), field
