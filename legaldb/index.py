"""The in-memory index of the statute structure: names, versions by date, article numbers.

Pure: built from plain rows (the repository runs the SQL), answers without I/O. It holds no
article texts, so the national corpus fits in tens of megabytes and a lookup is a few dict
probes and one bisect. The articles' structure is kept packed (every article of every version
in one array of positions in a table of shapes the whole index shares, each version's
numbering in its layout), and each law's correspondences as one marshalled block; an
`ArticleInfo` (a `Successor`) is made only when asked for: a process touches a few hundred
versions and few of their articles, a million articles stay under a hundred bytes each, and
the first lookup of an article reads one position, not the whole version's objects, and
opens nothing per version.
"""

from __future__ import annotations

import marshal
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from legaldb.models import (
    LEVELS,
    ArticleInfo,
    LawInfo,
    Lookup,
    RepealInfo,
    Successor,
    VersionInfo,
)
from textnorm import normalize_name, strip_prc_prefix
from textnorm.kept import kept_pattern
from textnorm.names import PRC_PREFIX
from textnorm.slotted import filler

_LEVEL_RANK = {level: rank for rank, level in enumerate(LEVELS)}
ArticleRow = tuple[int, int, str | None, str, bool, tuple[int, ...], tuple[str, ...]]

PROVINCES = (
    "北京", "天津", "上海", "重庆", "河北", "山西", "辽宁", "吉林", "黑龙江", "江苏", "浙江",
    "安徽", "福建", "江西", "山东", "河南", "湖北", "湖南", "广东", "海南", "四川", "贵州",
    "云南", "陕西", "甘肃", "青海", "台湾", "内蒙古", "广西", "西藏", "宁夏", "新疆",
)  # fmt: skip
_PROVINCE_PREFIX = kept_pattern(rf"^(?:{'|'.join(PROVINCES)})")
# A prefecture or county before the title: 深圳市…条例, 延边朝鲜族自治州…条例, 深圳经济特区…
_LOCAL_PREFIX = kept_pattern(r"^[\u4e00-\u9fff]{2,12}?(?:市|自治州|自治县|自治旗|县|盟|经济特区)")
_JUDICIAL = kept_pattern(r"^最高人民(?:法院|检察院).*(?:解释|规定|批复|决定|答复|意见)$")
_MINISTRY = kept_pattern(
    r"^(?:国家|中国|财政|教育|科学技术|工业和信息化|公安|民政|司法|人力资源和社会保障|自然资源"
    r"|生态环境|住房和城乡建设|交通运输|水利|农业农村|商务|文化和旅游|卫生|退役军人事务|应急管理"
    r"|审计|海关|市场监督|中国人民银行|外交|国防)[\u4e00-\u9fff]*?(?:部|委员会|总局|局|署|银行|总署)"
)


def _is_law_title(name: str) -> bool:
    """…法 / …法典 is the form of a 法律's title; …办法 (a rule or regulation) is not."""
    return name.endswith(("法", "法典")) and not name.endswith("办法")


def guess_level_of_name(name: str) -> str:
    """The level a law name suggests by its form, for names not in the database."""
    name = normalize_name(name)
    bare = strip_prc_prefix(name)
    if bare.endswith("宪法") or bare.startswith("宪法修正案"):
        return "宪法"
    if _JUDICIAL.match(name):
        return "司法解释"
    if name.startswith("国家监察委员会"):
        return "监察法规"
    if name.startswith("国务院") and not name.endswith("法"):
        return "行政法规"
    if name.startswith(PRC_PREFIX):
        if _is_law_title(bare) or "决定" in bare:
            return "法律"
        if bare.endswith(("条例", "实施细则")):
            return "行政法规"
        return "其他"
    if _PROVINCE_PREFIX.match(name) or (
        _LOCAL_PREFIX.match(name) and name.endswith(("条例", "规定", "办法", "决定", "细则"))
    ):
        return "地方性法规"
    if _MINISTRY.match(name) and name.endswith(("办法", "规定", "细则", "规则")):
        return "部门规章"
    if _is_law_title(name) or name.endswith("法修正案"):
        return "法律"
    if name.endswith(("条例", "实施细则")):
        return "行政法规"
    if name.endswith(("解释",)) and "最高人民" in name:
        return "司法解释"
    return "其他"


@dataclass(slots=True)
class StatuteIndex:
    """Everything the hot path needs, keyed for O(1) probes."""

    laws: dict[int, LawInfo] = field(default_factory=dict)
    keys: dict[str, int] = field(default_factory=dict)  # normalised alias -> law id
    lexicon: dict[str, str] = field(default_factory=dict)  # alias, key -> canonical name
    versions: dict[int, tuple[VersionInfo, ...]] = field(default_factory=dict)  # by law
    version_by_id: dict[int, VersionInfo] = field(default_factory=dict)
    # per law: the dated versions sorted by effective_from, and their start ordinals
    dated: dict[int, tuple[VersionInfo, ...]] = field(default_factory=dict)
    starts: dict[int, list[int]] = field(default_factory=dict)
    # and their effective_to (_NEVER: open): made here at load, for every law (a law's
    # timeline made them, on its first lookup, for 59 M instructions more in a first pass at
    # 1M than the 45 M they add to opening the snapshot there)
    ends: dict[int, tuple[int, ...]] = field(default_factory=dict)
    # The articles of every version, one after the other in one array: each article's shape
    # (its position in `shapes`), a version's articles in (number, suffix) order from its
    # layout's first position; an `ArticleInfo` is made only for an article asked for, and
    # kept in `made` at its position in the array (the same article is the same object; a
    # list of None as long as the array, made with it at load: one slot, 8 bytes, per article,
    # frozen with the index where tune_collector runs, and a read and a store in place of a
    # dict's probe, insertion and growth per new article).
    # Nothing is opened per version: a version's layout says where its articles lie and how
    # they are numbered (Layout, below); `numbered` holds the numbers of the versions not
    # numbered 1 … n that were asked about.
    layouts: dict[int, Layout] = field(default_factory=dict)
    article_shapes: array[int] = field(default_factory=lambda: array("I"))
    made: list[ArticleInfo | None] = field(default_factory=list)
    numbered: dict[int, array[int]] = field(default_factory=dict)
    # shared by every version, so that making an article reads one position: the distinct
    # shapes of all articles, (deleted, paragraph_count, item_counts, chapter_path), and the
    # label of each article number, (number, suffix) for 之一 articles, as the data writes it
    # (a version labelled otherwise keeps its own labels)
    shapes: tuple[Shape, ...] = ()
    labels: dict[int | tuple[int, str], str] = field(default_factory=dict)
    repeals: dict[int, RepealInfo] = field(default_factory=dict)
    # per law: its correspondences (rows, curated first, then by similarity) marshalled, made
    # into `Successor` objects the first time the law is asked about (successors_of)
    successor_rows: dict[int, bytes] = field(default_factory=dict)
    successors: dict[tuple[int, int, str | None], tuple[Successor, ...]] = field(
        default_factory=dict
    )
    successors_made: set[int] = field(default_factory=set)
    timelines: dict[int, Timeline] = field(default_factory=dict)  # built on first use

    # --- building -------------------------------------------------------------------------

    def add_laws(self, laws: Iterable[LawInfo], aliases: Iterable[tuple[int, str, str]]) -> None:
        """Register laws and their (law_id, alias, key) rows; ambiguous keys go to the best law."""
        alias_lists: dict[int, list[str]] = {}
        candidates: dict[str, list[int]] = {}
        for law_id, alias, key in aliases:
            alias_lists.setdefault(law_id, []).append(alias)
            candidates.setdefault(key, []).append(law_id)
        for law in laws:
            own = tuple(dict.fromkeys(alias_lists.get(law.id, ())))
            self.laws[law.id] = LawInfo(
                law.id, law.name, law.short_name, law.level, law.issuer, own
            )
            candidates.setdefault(normalize_name(law.name), []).append(law.id)
        for key, law_ids in candidates.items():
            known = [i for i in dict.fromkeys(law_ids) if i in self.laws]
            if known:
                best = min(known, key=lambda i: self._priority(i, key))
                self.keys[key] = best
        for law in self.laws.values():
            for alias in law.aliases:
                key = normalize_name(alias)
                if self.keys.get(key) == law.id:
                    self.lexicon[alias] = law.name
                    self.lexicon[key] = law.name

    def _priority(self, law_id: int, key: str) -> tuple[int, int, int]:
        law = self.laws[law_id]
        canonical = 0 if normalize_name(law.name) == key else 1
        return (canonical, _LEVEL_RANK.get(law.level, len(LEVELS)), law_id)

    def add_versions(self, versions: Iterable[VersionInfo]) -> None:
        """Register versions; sorted per law by effective date (then promulgation, id). A law
        of one version (three in four of the national corpus's) is registered without sorting:
        half the time of a snapshot's 2,177 versions."""
        by_law: dict[int, list[VersionInfo]] = {}
        version_by_id = self.version_by_id
        for version in versions:
            group = by_law.get(version.law_id)
            if group is None:
                by_law[version.law_id] = [version]
            else:
                group.append(version)
            version_by_id[version.id] = version
        for law_id, items in by_law.items():
            if len(items) == 1:
                self._add_one_version(law_id, items[0])
                continue
            items.sort(key=lambda v: (v.effective_from or v.promulgated or date.min, v.id))
            self.versions[law_id] = tuple(items)
            dated = tuple(
                sorted(
                    (v for v in items if v.effective_from is not None),
                    key=lambda v: (v.effective_from, v.id),
                )
            )
            self.dated[law_id] = dated
            self.starts[law_id] = [v.effective_from.toordinal() for v in dated if v.effective_from]
            self.ends[law_id] = tuple(
                [v.effective_to.toordinal() if v.effective_to else _NEVER for v in dated]
            )

    def _add_one_version(self, law_id: int, version: VersionInfo) -> None:
        """add_versions for a law of one version: what sorting one item would give."""
        self.versions[law_id] = (version,)
        start, end = version.effective_from, version.effective_to
        if start is None:
            self.dated[law_id], self.starts[law_id], self.ends[law_id] = (), [], ()
        else:
            self.dated[law_id] = (version,)
            self.starts[law_id] = [start.toordinal()]
            self.ends[law_id] = (end.toordinal() if end else _NEVER,)

    def add_article_rows(self, rows: Iterable[ArticleRow]) -> None:
        """Register the structure of articles (no texts): rows (version_id, number, suffix,
        label, deleted, item_counts, chapter_path), suffix None for none."""
        grouped: dict[int, list[tuple[Any, ...]]] = {}
        for version_id, *row in rows:
            grouped.setdefault(version_id, []).append(tuple(row))
        shape_ids = {shape: i for i, shape in enumerate(self.shapes)}
        for version_id, items in grouped.items():
            numbers, suffixes, shapes, labels = _pack(items, shape_ids, self.labels)
            first = len(self.article_shapes)
            self.article_shapes.extend(shapes)
            self.made.extend([None] * len(shapes))
            self.layouts[version_id] = (first, len(items), numbers, suffixes, labels)
            self.numbered.pop(version_id, None)
        # each distinct item counts and chapter path one object, however many shapes hold it:
        # marshal keeps them shared, and the articles made point to few, often used ones
        parts: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self.shapes = tuple(
            (deleted, paragraphs, parts.setdefault(counts, counts), parts.setdefault(path, path))
            for deleted, paragraphs, counts, path in shape_ids
        )

    def article(self, version_id: int, number: int, suffix: str | None) -> ArticleInfo | None:
        """The structure of the version's article numbered (number, suffix), else None."""
        layout = self.layouts.get(version_id)
        if layout is None:
            return None
        first, count, numbers, suffixes, labels = layout
        if numbers:
            position = self._position(version_id, numbers, suffixes, number, suffix)
            if position < 0:
                return None
        elif suffix is None and 0 < number <= count:  # numbered 1 … count: n is the n-th
            position = number - 1
        else:
            return None
        found = self.made[first + position]
        if found is None:
            found = self._make(version_id, first + position, number, suffix, labels, position)
        return found

    def article_total(self) -> int:
        """How many articles the versions hold."""
        return sum(layout[1] for layout in self.layouts.values())

    def _position(
        self,
        version_id: int,
        packed: bytes,
        suffixes: tuple[str | None, ...] | None,
        number: int,
        suffix: str | None,
    ) -> int:
        """Where (number, suffix) lies among a version's articles numbered otherwise than
        1 … n (bisecting its numbers, read from `packed` the first time); -1: nowhere."""
        numbers = self.numbered.get(version_id)
        if numbers is None:
            numbers = self.numbered[version_id] = array("i")
            numbers.frombytes(packed)
        position = bisect_left(numbers, number)
        if suffixes is None:  # plain numbering: at most one article per number
            found = suffix is None and position < len(numbers) and numbers[position] == number
            return position if found else -1
        while position < len(numbers) and numbers[position] == number:
            if suffixes[position] == suffix:
                return position
            position += 1
        return -1

    def _make(
        self,
        version_id: int,
        at: int,
        number: int,
        suffix: str | None,
        labels: tuple[str, ...] | None,
        position: int,
    ) -> ArticleInfo:
        """The article at position `at` of the array (the version's `position`-th), made."""
        deleted, paragraph_count, item_counts, chapter_path = self.shapes[self.article_shapes[at]]
        # ArticleInfo(version_id, number, suffix, label, deleted, paragraph_count, item_counts,
        # chapter_path), made as _ArticleInfoFiller (below)
        found = _ArticleInfoFiller()
        found.version_id = version_id
        found.number = number
        found.suffix = suffix
        if labels is not None:
            found.label = labels[position]
        else:
            found.label = self.labels[number if suffix is None else (number, suffix)]
        found.deleted = deleted
        found.paragraph_count = paragraph_count
        found.item_counts = item_counts
        found.chapter_path = chapter_path
        found.__class__ = ArticleInfo
        made: ArticleInfo = found
        self.made[at] = made
        return made

    def add_repeals(self, repeals: Iterable[RepealInfo]) -> None:
        """Register repeal events (the earliest per law wins)."""
        for repeal in sorted(repeals, key=lambda r: r.repealed_on or date.max, reverse=True):
            self.repeals[repeal.law_id] = repeal

    def add_successors(self, successors: Iterable[Successor]) -> None:
        """Register correspondences, curated first, then by similarity."""
        by_law: dict[int, list[Successor]] = {}
        for successor in successors:
            by_law.setdefault(successor.from_law_id, []).append(successor)
        for law_id, items in by_law.items():
            items.sort(key=lambda s: (s.from_number, s.from_suffix or "", s.kind != "curated",
                                      -(s.similarity or 0), s.to_number))  # fmt: skip
            self.successor_rows[law_id] = marshal.dumps(
                tuple(
                    (s.from_law_id, s.from_version_id, s.from_number, s.from_suffix, s.to_law_id,
                     s.to_version_id, s.to_number, s.to_suffix, s.kind, s.similarity, s.changed,
                     s.note)
                    for s in items
                )
            )  # fmt: skip
            self.successors_made.discard(law_id)

    def successors_of(self, law_id: int, number: int, suffix: str | None) -> tuple[Successor, ...]:
        """The correspondences from one article, curated first, then by similarity."""
        if law_id not in self.successors_made:
            grouped: dict[tuple[int, int, str | None], list[Successor]] = {}
            for row in marshal.loads(self.successor_rows.get(law_id, _NO_ROWS)):
                successor = Successor(*row)
                key = (law_id, successor.from_number, successor.from_suffix)
                grouped.setdefault(key, []).append(successor)
            for key, items in grouped.items():
                self.successors[key] = tuple(items)
            self.successors_made.add(law_id)
        return self.successors.get((law_id, number, suffix), ())

    # --- as plain values (legaldb.snapshot keeps them on disk) ----------------------------

    def to_plain(self) -> dict[str, Any]:
        """The index as tuples, dicts, strings, ints and bytes (dates as ordinals): what
        `marshal` writes and `from_plain` rebuilds without normalising a name again."""
        versions = [
            (v.id, v.law_id, v.label, _ordinal(v.promulgated), _ordinal(v.effective_from),
             _ordinal(v.effective_to), v.article_count, v.has_text, v.source, v.effective_rule,
             v.sources)
            for v in self.version_by_id.values()
        ]  # fmt: skip
        return {
            "laws": [
                (law.id, law.name, law.short_name, law.level, law.issuer, law.aliases)
                for law in self.laws.values()
            ],
            "keys": self.keys,
            "lexicon": self.lexicon,
            "versions": versions,
            "layouts": self.layouts,
            "article_shapes": self.article_shapes.tobytes(),
            "shapes": self.shapes,
            "labels": self.labels,
            "repeals": [
                (
                    r.law_id,
                    _ordinal(r.repealed_on),
                    r.repealed_by,
                    r.successor_law_id,
                    r.source,
                    r.note,
                )
                for r in self.repeals.values()
            ],
            "successors": self.successor_rows,
        }

    @classmethod
    def from_plain(cls, plain: dict[str, Any]) -> StatuteIndex:
        """The index `to_plain` described."""
        index = cls(keys=plain["keys"], lexicon=plain["lexicon"])
        index.laws = {row[0]: _plain_law(row) for row in plain["laws"]}
        index.add_versions(map(_plain_version, plain["versions"]))
        index.layouts = plain["layouts"]
        index.article_shapes.frombytes(plain["article_shapes"])
        index.made = [None] * len(index.article_shapes)
        index.shapes = plain["shapes"]
        index.labels = plain["labels"]
        index.repeals = {
            law_id: RepealInfo(law_id, _date(on), by, successor, source, note)
            for law_id, on, by, successor, source, note in plain["repeals"]
        }
        index.successor_rows = plain["successors"]
        return index

    # --- answering ------------------------------------------------------------------------

    def resolve_key(self, name: str) -> int | None:
        """The law id a name refers to (normalised; with or without 中华人民共和国)."""
        # A key is its own normal form, and 《key》's normal form is the key: most names are
        # one of the two, found without running normalize_name's regular expressions.
        found = self.keys.get(name)
        if found is None and name[:1] == "《" and name[-1:] == "》":
            found = self.keys.get(name[1:-1])
        if found is not None:
            return found
        key = normalize_name(name)
        found = self.keys.get(key)
        if found is None:
            bare = strip_prc_prefix(key)
            found = self.keys.get(bare) if bare != key else self.keys.get(PRC_PREFIX + key)
        return found

    def version_in_force(self, law_id: int, as_of: date) -> VersionInfo | None:
        """The version in force on as_of (the latest-starting one when data overlaps)."""
        starts = self.starts.get(law_id)
        if not starts:
            return None
        position = bisect_right(starts, as_of.toordinal()) - 1
        if position < 0:
            return None
        version = self.dated[law_id][position]
        if version.effective_to is not None and as_of >= version.effective_to:
            return None
        return version

    def nearest_version(self, law_id: int, as_of: date) -> VersionInfo | None:
        """When none is in force: the last version started before as_of, else the first one."""
        starts = self.starts.get(law_id)
        if not starts:
            versions = self.versions.get(law_id)
            return versions[-1] if versions else None
        position = bisect_right(starts, as_of.toordinal()) - 1
        return self.dated[law_id][max(position, 0)]

    def timeline(self, law_id: int) -> Timeline:
        """The law's versions laid out for the hot path (built once, on first use)."""
        timeline = self.timelines.get(law_id)
        if timeline is None:
            # its slots stored here: an __init__ called with seven arguments was a frame and
            # the arguments' binding per law (16,000 laws opened at 1M)
            timeline = _new_timeline(Timeline)
            timeline.law = self.laws[law_id]
            timeline.repeal = self.repeals.get(law_id)
            timeline.starts = self.starts.get(law_id, _NO_STARTS)
            timeline.ends = self.ends.get(law_id, ())
            timeline.dated = dated = self.dated.get(law_id, ())
            versions = self.versions.get(law_id)
            timeline.fallback = versions[-1] if versions else None
            timeline.index = self
            timeline.slots = 2 * len(dated) + 2
            timeline.memo = {}
            self.timelines[law_id] = timeline
        return timeline


def _ordinal(day: date | None) -> int | None:
    return None if day is None else day.toordinal()


def _date(ordinal: int | None) -> date | None:
    return None if ordinal is None else date.fromordinal(ordinal)


def _plain_law(row: tuple[Any, ...]) -> LawInfo:
    """The LawInfo of a `to_plain` row, made as _LawInfoFiller (below), as _plain_version."""
    made = _LawInfoFiller()
    made.id, made.name, made.short_name, made.level, made.issuer, made.aliases = row
    made.__class__ = LawInfo
    return made  # type: ignore[no-any-return]


def _plain_version(row: tuple[Any, ...]) -> VersionInfo:
    """The VersionInfo of a `to_plain` row, made as _VersionInfoFiller (below): the
    dataclass's __init__ for each of a snapshot's two thousand versions was a fifth of
    `from_plain`."""
    made = _VersionInfoFiller()
    (made.id, made.law_id, made.label, promulgated, start, end, made.article_count,
     made.has_text, made.source, made.effective_rule, made.sources) = row  # fmt: skip
    made.promulgated, made.effective_from, made.effective_to = map(_date, (promulgated, start, end))
    made.__class__ = VersionInfo
    return made  # type: ignore[no-any-return]


_NEVER = date.max.toordinal() + 1
_NO_ROWS = marshal.dumps(())
_MEMO_LIMIT = 8192
NAME_CACHE_LIMIT = 100_000  # names kept by a repository (and its Lookups), then cleared
NOTHING = Lookup(law=None, version=None, article=None, repeal=None)  # a name of no law
_NO_STARTS: list[int] = []  # a law without dated versions (never changed)
_new_timeline = object.__new__

# A version's layout: where its articles lie in StatuteIndex.article_shapes (the first
# position and how many), and how they are numbered, in (number, suffix) order: the numbers
# (array "i" as bytes; empty when they run 1 … n without suffixes, as in most versions:
# article n is the n-th), the suffixes (None when the version has none), and the labels: None
# when each is the one `StatuteIndex.labels` holds for its number (every version of both
# libraries measured), else the version's own, one per article.
Shape = tuple[bool, int, tuple[int, ...], tuple[str, ...]]
Layout = tuple[int, int, bytes, tuple[str | None, ...] | None, tuple[str, ...] | None]


def _pack(
    rows: Iterable[tuple[Any, ...]],
    shape_ids: dict[Shape, int],
    label_table: dict[int | tuple[int, str], str],
) -> tuple[bytes, tuple[str | None, ...] | None, list[int], tuple[str, ...] | None]:
    """A version's rows (number, suffix, label, deleted, item_counts, chapter_path) as its
    numbers, suffixes, shapes (positions in shape_ids, where a new shape is added: position =
    id) and labels (see Layout); the label of a number not yet in label_table goes there (the
    first version to have it gives it)."""
    ordered = sorted(rows, key=lambda row: (row[0], row[1] or ""))
    shapes, as_table = [], True
    for number, suffix, label, deleted, item_counts, chapter_path in ordered:
        counts = tuple(item_counts)
        shape = (bool(deleted), len(counts), counts, tuple(chapter_path))
        shapes.append(shape_ids.setdefault(shape, len(shape_ids)))
        key = number if suffix is None else (number, suffix)
        as_table = label_table.setdefault(key, label) == label and as_table
    suffixes = tuple(row[1] for row in ordered)
    numbers = [row[0] for row in ordered]
    dense = not any(suffixes) and numbers == list(range(1, len(numbers) + 1))
    return (
        b"" if dense else array("i", numbers).tobytes(),
        suffixes if any(suffixes) else None,
        shapes,
        None if as_table else tuple(row[2] for row in ordered),
    )


class Timeline:
    """One law's dated versions as parallel lists, and a memo of the answers already given.

    Lookups of the same (version, in force or not, article) share one frozen Lookup, so the
    hot path is a bisect and two dict probes. The memo's key is one int made of the article
    number, the version's position and whether it is in force (a tuple only for 之一
    articles): a tuple per answer was one more object for the collector to count. Made by
    `StatuteIndex.timeline` only, its slots stored there (no `__init__` frame per law), and
    read by `Lookups.lookup` (the answers).
    """

    __slots__ = (
        "dated",
        "ends",
        "fallback",
        "index",
        "law",
        "memo",
        "repeal",
        "slots",
        "starts",
    )

    law: LawInfo
    repeal: RepealInfo | None
    starts: list[int]  # the dated versions' effective_from as ordinals
    ends: tuple[int, ...]  # their effective_to as ordinals (_NEVER: open)
    dated: tuple[VersionInfo, ...]
    fallback: VersionInfo | None  # no dated version: the newest undated one
    # the versions' articles (StatuteIndex.layouts, made, article); the index, not a bound
    # method: that was one more object per law for the collector to count
    index: StatuteIndex
    # the memo is keyed by number * slots + 2 * (position + 1) + in_force (position -1: no
    # dated version, the fallback), by (number, suffix, that slot) for 之一 articles; under
    # (slot,) the answer without an article, shared by every number the version lacks (no
    # dict of its own: one object less per law for the collector)
    slots: int  # 2 * len(dated) + 2
    memo: dict[int | tuple[int, str, int] | tuple[int], Lookup]


class Lookups:
    """`StatuteRepository.lookup`: the law's timeline for each name as written (None for a
    name of no law), and each answer, in one frame (a frame per layer, repository, timeline
    and new answer, was a third of a warm lookup's instructions); a new answer is made here,
    not in a function of its own: the article made in place for a version numbered 1 … n
    (most versions), by StatuteIndex.article otherwise; the answer without an article is one
    per (version, in force) slot. legaldb/_lookup_path.c runs the same steps compiled, over the
    same dicts and lists (`lookup_function`)."""

    __slots__ = ("index", "timelines")

    def __init__(self, index: StatuteIndex) -> None:
        self.index = index
        # probed with `.get` (a subclass of dict with `__missing__` was subscripted through a
        # method call: dict's `__getitem__` is a method beside its slot, so a subclass's slot
        # calls it by name, 335 instructions a lookup; a KeyError caught for each new name
        # cost an exception, a traceback and a frame object, 3,500 instructions)
        self.timelines: dict[str, Timeline | None] = {}

    def lookup(self, name: str, number: int, suffix: str | None, as_of: date) -> Lookup:
        """Law, version in force, article and repeal for one citation (see
        StatuteRepository.lookup)."""
        timeline = self.timelines.get(name)
        if timeline is None:
            timeline = self.timeline_of(name)
            if timeline is None:
                return NOTHING
        ordinal = as_of.toordinal()
        if not suffix:
            suffix = None
        position = bisect_right(timeline.starts, ordinal) - 1
        # slot = 2 * (position + 1) + in force, by branches (a comparison stored in a variable
        # is not specialised, one followed by a jump is)
        if position >= 0:
            slot = 2 * position + 2
            if ordinal < timeline.ends[position]:
                slot += 1
        elif timeline.dated:
            position = 0  # not yet in force: the first version tells what will exist
            slot = 2
        else:
            slot = 0
        key = number * timeline.slots + slot if suffix is None else (number, suffix, slot)
        memo = timeline.memo
        found = memo.get(key)
        if found is not None:
            return found
        # no dated version: the newest undated one, never "in force"
        where = timeline.dated[position] if position >= 0 else timeline.fallback
        article = None
        if where is not None:
            index = self.index
            layout = index.layouts.get(where.id)
            if layout is not None:
                first, count, numbers, _, labels = layout
                if numbers or labels is not None or suffix is not None:
                    article = index.article(where.id, number, suffix)
                # numbered 1 … count: article n is the n-th (two comparisons, each followed by
                # a jump, which Python specialises; a chained one it does not)
                elif number > 0 and number <= count:
                    at = first + number - 1
                    article = index.made[at]
                    if article is None:
                        # index._make(where.id, at, number, None, None, number - 1), in place:
                        # a call less per new article
                        deleted, paragraph_count, item_counts, chapter_path = index.shapes[
                            index.article_shapes[at]
                        ]
                        info = _ArticleInfoFiller()
                        info.version_id = where.id
                        info.number = number
                        info.suffix = None
                        info.label = index.labels[number]
                        info.deleted = deleted
                        info.paragraph_count = paragraph_count
                        info.item_counts = item_counts
                        info.chapter_path = chapter_path
                        info.__class__ = ArticleInfo
                        article = index.made[at] = info
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        if article is None:
            shared = memo.get((slot,))
            if shared is not None:
                memo[key] = shared
                return shared
        # Lookup(law, version, article, repeal, article_version), made as _LookupFiller (below)
        made = _LookupFiller()
        made.law = timeline.law
        made.version = where if slot & 1 else None  # in force
        made.article = article
        made.repeal = timeline.repeal
        made.article_version = where
        made.__class__ = Lookup
        found = made
        if article is None:
            memo[(slot,)] = found
        memo[key] = found
        return found

    def timeline_of(self, name: str) -> Timeline | None:
        """The law's timeline for a name not in `timelines`, or kept there as of no law (None),
        resolved and kept."""
        timelines = self.timelines
        if name in timelines:
            return None  # a name of no law, already resolved
        # resolve_key's first probe and the made timelines, here: most new names are a key,
        # and most of their laws' timelines are made (two frames less per new name)
        index = self.index
        law_id = index.keys.get(name)
        if law_id is None:
            law_id = index.resolve_key(name)
        timeline = None
        if law_id is not None:
            timeline = index.timelines.get(law_id)
            if timeline is None:
                timeline = index.timeline(law_id)
        if len(timelines) >= NAME_CACHE_LIMIT:
            timelines.clear()
        timelines[name] = timeline
        return timeline


# The answers of the hot path are made through fillers (`textnorm.slotted.filler`).
_LookupFiller = filler(Lookup)
_ArticleInfoFiller = filler(ArticleInfo)
_VersionInfoFiller = filler(VersionInfo)
_LawInfoFiller = filler(LawInfo)

try:  # Lookups.lookup compiled (legaldb/_lookup_path.c, built by setup.py where it can be)
    from legaldb._lookup_path import LookupPath
except ImportError:  # pragma: no cover - a build without a C compiler: Python answers
    LookupPath = None  # type: ignore[assignment,misc]


def lookup_function(lookups: Lookups) -> Callable[[str, int, str | None, date], Lookup]:
    """What answers `lookups.lookup`'s calls fastest: the compiled path over the same dicts
    and lists (so the two give the same objects, and may be called in turn), else the method."""
    if LookupPath is None:
        return lookups.lookup
    return LookupPath(
        lookups, NOTHING, Timeline, VersionInfo, StatuteIndex, Lookup, ArticleInfo, _MEMO_LIMIT
    )
