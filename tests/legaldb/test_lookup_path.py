"""The compiled lookup path (legaldb/_lookup_path.c) answers as `Lookups.lookup` does."""

from __future__ import annotations

import gc
import marshal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from legaldb import index as index_module
from legaldb.index import NOTHING, LookupPath, Lookups, StatuteIndex, Timeline, lookup_function
from legaldb.models import ArticleInfo, LawInfo, Lookup, RepealInfo, VersionInfo

pytestmark = pytest.mark.skipif(LookupPath is None, reason="built without a C compiler")

Query = tuple[str, int, str | None, date]


_BOUNDARIES = [date(2006, 1, 1), date(2014, 3, 1), date(2018, 10, 26), date(2010, 1, 1),
               date(2012, 1, 1), date(2015, 1, 1)]  # fmt: skip


def _version(version_id: int, law_id: int, start: date | None, end: date | None) -> VersionInfo:
    return VersionInfo(version_id, law_id, f"v{version_id}", None, start, end, 9, True)


def _rows(numbers: list[tuple[int, str | None]], labels: str = "第{}条") -> list[tuple]:
    return [
        (n, suffix, labels.format(n) + (suffix or ""), n % 4 == 0, (0,) * (n % 3 + 1), ("第一章",))
        for n, suffix in numbers
    ]


def _index() -> StatuteIndex:
    """Laws of every shape the path reads: versions numbered 1 … n, with gaps and 之一
    articles, labelled otherwise than the table, without articles, undated, with a gap in
    force, repealed; read back as from the snapshot."""
    index = StatuteIndex()
    index.add_laws(
        [
            LawInfo(1, "中华人民共和国公司法", "公司法", "法律"),
            LawInfo(2, "某某条例", "某某条例", "行政法规"),
            LawInfo(3, "某某规定", "某某规定", "部门规章"),
        ],
        [(1, "公司法", "公司法")],
    )
    index.add_versions(
        [
            _version(10, 1, date(2006, 1, 1), date(2014, 3, 1)),
            _version(11, 1, date(2014, 3, 1), date(2018, 10, 26)),
            _version(12, 1, date(2018, 10, 26), None),
            _version(20, 2, None, None),
            _version(30, 3, date(2010, 1, 1), date(2012, 1, 1)),
            _version(31, 3, date(2015, 1, 1), None),
        ]
    )
    index.add_repeals([RepealInfo(3, date(2024, 1, 1), "某某决定", None)])
    index.add_article_rows((10, *row) for row in _rows([(n, None) for n in range(1, 6)]))
    gapped = [(1, None), (2, None), (2, "之一"), (2, "之二"), (5, None), (7, None)]
    index.add_article_rows((11, *row) for row in _rows(gapped))
    index.add_article_rows((12, *row) for row in _rows([(1, None), (2, None)], "第{}條"))
    index.add_article_rows((20, *row) for row in _rows([(n, None) for n in range(1, 4)]))
    index.add_article_rows((31, *row) for row in _rows([(n, None) for n in range(1, 8)]))
    return StatuteIndex.from_plain(marshal.loads(marshal.dumps(index.to_plain())))


NAMES = ["中华人民共和国公司法", "公司法", "《公司法》", "某某条例", "某某规定", "不存在法"]
NUMBERS = [*range(-1, 10), 2**41, -(2**41), 2**70]
SUFFIXES = [None, "", "之一", "之二", "之三"]
DAYS = [day + timedelta(days=shift) for day in _BOUNDARIES for shift in (-1, 0, 1)]
queries = st.tuples(
    st.sampled_from(NAMES),
    st.integers(min_value=-1, max_value=9) | st.sampled_from(NUMBERS),
    st.sampled_from(SUFFIXES),
    st.dates(min_value=date(2000, 1, 1), max_value=date(2026, 12, 31))
    | st.sampled_from(_BOUNDARIES).flatmap(
        lambda day: st.sampled_from([day - timedelta(days=1), day, day + timedelta(days=1)])
    ),
)


def _compiled(lookups: Lookups, memo_limit: int) -> Callable[[str, int, str | None, date], Lookup]:
    assert LookupPath is not None
    return LookupPath(
        lookups, NOTHING, Timeline, VersionInfo, StatuteIndex, Lookup, ArticleInfo, memo_limit
    )


@contextmanager
def _memo_limit(limit: int) -> Iterator[None]:
    """Lookups.lookup's memo limit for a while (the compiled path is given its own)."""
    kept = index_module._MEMO_LIMIT
    index_module._MEMO_LIMIT = limit
    try:
        yield
    finally:
        index_module._MEMO_LIMIT = kept


def _sharing(answers: list[Lookup]) -> list[int]:
    """For each answer, where the same object first appears: which answers are one object."""
    first: dict[int, int] = {}
    return [first.setdefault(id(answer), at) for at, answer in enumerate(answers)]


@pytest.mark.parametrize("memo_limit", [3, 8192])
def test_every_query_of_a_grid_is_answered_alike(memo_limit: int) -> None:
    """Every name, number, suffix and date around each version's bounds, in turn and again:
    equal answers (type, repr), shared alike."""
    grid = [
        (name, number, suffix, day)
        for day in [*DAYS, date(2000, 1, 1), date(2026, 1, 1)]
        for name in NAMES
        for number in NUMBERS
        for suffix in SUFFIXES
    ]
    with _memo_limit(memo_limit):
        by_python = Lookups(_index()).lookup
        python = [by_python(*query) for query in grid + grid]
        by_c = _compiled(Lookups(_index()), memo_limit)
        compiled = [by_c(*query) for query in grid + grid]
    assert [repr(answer) for answer in compiled] == [repr(answer) for answer in python]
    assert [type(answer) for answer in compiled] == [type(answer) for answer in python]
    assert _sharing(compiled) == _sharing(python)


@given(st.lists(queries, max_size=80), st.sampled_from([3, 8192]))
def test_the_compiled_path_gives_the_answers_of_the_python_one(
    drawn: list[Query], memo_limit: int
) -> None:
    """Over fresh indexes, the same queries give equal answers (type, repr), shared alike."""
    with _memo_limit(memo_limit):
        by_python = Lookups(_index()).lookup
        python = [by_python(*query) for query in drawn]
        by_c = _compiled(Lookups(_index()), memo_limit)
        compiled = [by_c(*query) for query in drawn]
    assert [type(answer) for answer in compiled] == [type(answer) for answer in python]
    assert [repr(answer) for answer in compiled] == [repr(answer) for answer in python]
    assert compiled == python
    assert _sharing(compiled) == _sharing(python)
    articles = [answer.article for answer in compiled]
    assert _sharing(articles) == _sharing([answer.article for answer in python])  # type: ignore[arg-type]


@given(st.lists(queries, max_size=80))
def test_the_two_paths_share_their_answers(drawn: list[Query]) -> None:
    """Called in turn over one Lookups, each path finds the other's answers (the same object)."""
    lookups = Lookups(_index())
    compiled = _compiled(lookups, 8192)
    for turn, query in enumerate(drawn):
        first, second = (compiled, lookups.lookup) if turn % 2 else (lookups.lookup, compiled)
        assert second(*query) is first(*query)


def test_other_calls_go_to_the_python_path() -> None:
    """Keyword arguments, a date subclass and an int subclass are answered as Python does."""
    lookups = Lookups(_index())
    compiled = lookup_function(lookups)
    assert isinstance(compiled, LookupPath)
    answer = compiled("公司法", 2, None, date(2015, 1, 1))
    assert answer.article == ArticleInfo(11, 2, None, "第2条", False, 3, (0, 0, 0), ("第一章",))
    assert compiled(name="公司法", number=2, suffix=None, as_of=date(2015, 1, 1)) is answer
    assert compiled("公司法", True, None, date(2015, 1, 1)) is lookups.lookup(
        "公司法", True, None, date(2015, 1, 1)
    )
    with pytest.raises(TypeError):
        compiled("公司法", 2, None)  # type: ignore[call-arg]


def test_the_compiled_answers_are_left_out_of_the_collectors_walks() -> None:
    """The answers and articles the compiled path makes hold frozen statute data, nothing that
    refers back to them, so it untracks them (a young collection does not walk each new one);
    Python's own are tracked. Equal all the same."""
    query = ("公司法", 3, None, date(2010, 1, 1))
    answer = _compiled(Lookups(_index()), 8192)(*query)
    python = Lookups(_index()).lookup(*query)
    assert answer == python and answer.article is not None
    assert (gc.is_tracked(answer), gc.is_tracked(answer.article)) == (False, False)
    assert (gc.is_tracked(python), gc.is_tracked(python.article)) == (True, True)
