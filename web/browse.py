"""The statute browser's page helpers: /laws by level and by initial, and a version's outline
(编/章/节 with anchors) as a table of contents. Pages only; the API's lists are in views.py."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from pypinyin import lazy_pinyin

from legaldb import StatuteRepository
from legaldb.models import ArticleText, LawInfo
from textnorm import int_to_cn
from web.schemas import LawOut
from web.views import law_out

LEVEL_ORDER = ("宪法", "法律", "行政法规", "监察法规", "司法解释", "部门规章", "地方性法规")
"""Levels from the top of the hierarchy down; others follow in name order."""
OTHER_INITIAL = "#"
"""The initial of a name whose first character has no pinyin (a digit, a Latin letter…)."""
UNNUMBERED_PARTS = frozenset({"附则"})
"""Parts a code leaves without a number (民法典: 第七编 侵权责任, then 附则)."""
_BELOW_A_PART = re.compile(r"第[一二三四五六七八九十百零〇]+(?:章|分编)")
"""The headings that sit right below a 编: its 分编 (民法典's 合同编) or its chapters."""


@dataclass(frozen=True, slots=True)
class Entry:
    """A law in the catalogue: its pinyin sort key and initial (A-Z, or #)."""

    law: LawInfo
    initial: str
    sort_key: str


@dataclass(frozen=True, slots=True)
class Shelf:
    """What /laws shows without a query: the levels and initials (with counts) to browse by,
    and the laws of the chosen level and initial in pinyin order."""

    levels: list[tuple[str, int]]
    initials: list[tuple[str, int]]
    laws: list[LawOut]


@dataclass(frozen=True, slots=True)
class Heading:
    """One heading of a version's articles, its depth (0 编 or a part; then 分编, 章, 节 as the
    law has them) and its page anchor."""

    depth: int
    title: str
    anchor: str


@lru_cache(maxsize=4)
def catalogue(repo: StatuteRepository) -> tuple[Entry, ...]:
    """Every law of the repository in pinyin order of its short name (made once per repository:
    pypinyin takes some 0.1 s over the bundled corpus)."""
    entries = []
    for law in repo.laws():
        key = " ".join(lazy_pinyin(law.short_name or law.name)).lower()
        first = key[:1].upper()
        entries.append(Entry(law, first if "A" <= first <= "Z" else OTHER_INITIAL, key))
    return tuple(sorted(entries, key=lambda entry: (entry.sort_key, entry.law.name)))


def _level_rank(level: str) -> tuple[int, str]:
    return (LEVEL_ORDER.index(level) if level in LEVEL_ORDER else len(LEVEL_ORDER), level)


def shelf(repo: StatuteRepository, level: str, initial: str) -> Shelf:
    """The levels, the initials within the chosen level, and the laws of both choices (none
    when nothing is chosen: the page then shows only what to choose from)."""
    entries = catalogue(repo)
    levels = Counter(entry.law.level for entry in entries)
    chosen = [entry for entry in entries if not level or entry.law.level == level]
    initials = Counter(entry.initial for entry in chosen)
    shown = [entry for entry in chosen if not initial or entry.initial == initial]
    return Shelf(
        levels=sorted(levels.items(), key=lambda item: _level_rank(item[0])),
        initials=sorted(initials.items(), key=lambda item: (item[0] == OTHER_INITIAL, item[0])),
        laws=[law_out(repo, entry.law) for entry in shown] if level or initial else [],
    )


def _part_titles(paths: Sequence[tuple[str, ...]]) -> dict[str, str]:
    """Top-level parts above chapters that the data names without their number (民法典's
    files 总则, 物权编 … 附则) → the statute's own heading (第一编 总则, 第二编 物权 …)."""
    tops = list(dict.fromkeys(path[0] for path in paths if path))
    below = [path[1] for path in paths if len(path) > 1]
    if (
        len(tops) < 2
        or any(title.startswith("第") for title in tops)
        or not below
        or not all(_BELOW_A_PART.match(title) for title in below)
    ):
        return {}
    numbered = [title for title in tops if title not in UNNUMBERED_PARTS]
    return {
        title: f"第{int_to_cn(number)}编 {title.removesuffix('编')}"
        for number, title in enumerate(numbered, 1)
    }


def outline(articles: Sequence[ArticleText]) -> tuple[list[Heading], list[list[Heading]]]:
    """The headings of a version's articles in order (the table of contents), and for each
    article the headings that open just before it."""
    paths = [article.info.chapter_path for article in articles]
    parts = _part_titles(paths)
    contents: list[Heading] = []
    opening: list[list[Heading]] = []
    previous: tuple[str, ...] = ()
    for path in paths:
        shared = 0
        while shared < min(len(path), len(previous)) and path[shared] == previous[shared]:
            shared += 1
        here = []
        for depth in range(shared, len(path)):
            title = parts.get(path[depth], path[depth]) if depth == 0 else path[depth]
            heading = Heading(depth, title, f"h{len(contents) + 1}")
            contents.append(heading)
            here.append(heading)
        opening.append(here)
        previous = path
    return contents, opening


__all__ = ["Heading", "Shelf", "catalogue", "outline", "shelf"]
