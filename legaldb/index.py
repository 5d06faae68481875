"""The in-memory index of the statute structure: names, versions by date, article numbers.

Pure: built from plain rows (the repository runs the SQL), answers without I/O. It holds no
article texts, so the national corpus fits in tens of megabytes and a lookup is a few dict
probes and one bisect. A version's article structure is kept packed (`PackedArticles`: the
numbers and columns as arrays, the labels as one string, item counts and chapter paths as
positions in tables the whole index shares), and each law's correspondences as one
marshalled block; an `ArticleInfo` (a `Successor`) is made only when asked for: a process
touches a few hundred versions and few of their articles, a million articles stay under a
hundred bytes each, and the first lookup of an article costs a bisection and a slice, not
the whole version's objects.
"""

from __future__ import annotations

import marshal
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
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
from textnorm.slotted import slot_twin

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
    # per version: its article structure packed (PackedArticles.pack); `articles` holds the
    # versions already asked for, each making its ArticleInfo objects one by one on demand
    article_rows: dict[int, Packed] = field(default_factory=dict)
    article_totals: dict[int, int] = field(default_factory=dict)
    articles: dict[int, PackedArticles] = field(default_factory=dict)
    # shared by every version, so that opening one unmarshals nothing and making an article
    # reads one column: the distinct shapes of all articles, (deleted, paragraph_count,
    # item_counts, chapter_path), by position (a packed article holds its shape's), and the
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
        """Register versions; sorted per law by effective date (then promulgation, id)."""
        by_law: dict[int, list[VersionInfo]] = {}
        for version in versions:
            by_law.setdefault(version.law_id, []).append(version)
            self.version_by_id[version.id] = version
        for law_id, items in by_law.items():
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

    def add_article_rows(self, rows: Iterable[ArticleRow]) -> None:
        """Register the structure of articles (no texts): rows (version_id, number, suffix,
        label, deleted, item_counts, chapter_path), suffix None for none."""
        grouped: dict[int, list[tuple[Any, ...]]] = {}
        for version_id, *row in rows:
            grouped.setdefault(version_id, []).append(tuple(row))
        shape_ids = {shape: i for i, shape in enumerate(self.shapes)}
        for version_id, items in grouped.items():
            self.article_rows[version_id] = PackedArticles.pack(items, shape_ids, self.labels)
            self.article_totals[version_id] = len(items)
            self.articles.pop(version_id, None)
        # each distinct item counts and chapter path one object, however many shapes hold it:
        # marshal keeps them shared, and the articles made point to few, often used ones
        parts: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self.shapes = tuple(
            (deleted, paragraphs, parts.setdefault(counts, counts), parts.setdefault(path, path))
            for deleted, paragraphs, counts, path in shape_ids
        )

    def version_articles(self, version_id: int) -> PackedArticles:
        """The structure of a version's articles, `.get((number, suffix))` (none: empty)."""
        found = self.articles.get(version_id)
        if found is None:
            found = self.articles[version_id] = PackedArticles(
                version_id,
                self.article_rows.get(version_id, _NO_ARTICLES),
                self.shapes,
                self.labels,
            )
        return found

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
            "article_rows": self.article_rows,
            "article_totals": self.article_totals,
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
        index.laws = {row[0]: LawInfo(*row) for row in plain["laws"]}
        index.add_versions(
            VersionInfo(key, law_id, label, _date(promulgated), _date(start), _date(end), *rest)
            for key, law_id, label, promulgated, start, end, *rest in plain["versions"]
        )
        index.article_rows = plain["article_rows"]
        index.article_totals = plain["article_totals"]
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
            dated = self.dated.get(law_id, ())
            versions = self.versions.get(law_id, ())
            timeline = self.timelines[law_id] = Timeline(
                self.laws[law_id],
                self.repeals.get(law_id),
                self.starts.get(law_id, []),
                tuple([v.effective_to.toordinal() if v.effective_to else _NEVER for v in dated]),
                dated,
                versions[-1] if versions else None,
                self,
            )  # by position: a call with keywords builds a dict, 16,000 laws opened at 1M
        return timeline


def _ordinal(day: date | None) -> int | None:
    return None if day is None else day.toordinal()


def _date(ordinal: int | None) -> date | None:
    return None if ordinal is None else date.fromordinal(ordinal)


_NEVER = date.max.toordinal() + 1
_NO_ROWS = marshal.dumps(())
_MEMO_LIMIT = 8192

# A version's articles packed, column by column in (number, suffix) order: the numbers (array
# "i" as bytes; empty when they run 1 … n without suffixes, as in most versions: article n is
# the n-th), the suffixes (None when the version has none), each article's shape as its
# position in `StatuteIndex.shapes` (array "I" as bytes), and the labels: None when each is
# the one `StatuteIndex.labels` holds for its number (every version of both libraries
# measured), else the version's own, one per article.
Shape = tuple[bool, int, tuple[int, ...], tuple[str, ...]]
Packed = tuple[bytes, tuple[str | None, ...] | None, bytes, tuple[str, ...] | None]
_NO_ARTICLES: Packed = (b"", None, b"", None)


class PackedArticles:
    """One version's article structure, an `ArticleInfo` made only for an article asked for.

    `get((number, suffix))` finds the article's position (its number's place in 1 … n, else a
    bisection) and makes that article alone from its shape (one tuple the whole index shares)
    and its label (the number's, shared too); what it made is kept (by position), so the same
    article is the same object every time.
    """

    __slots__ = (
        "count",
        "label_table",
        "labels",
        "made",
        "numbers",
        "shape_table",
        "shapes",
        "suffixes",
        "version_id",
    )

    def __init__(
        self,
        version_id: int,
        packed: Packed,
        shape_table: tuple[Shape, ...],
        label_table: dict[int | tuple[int, str], str],
    ) -> None:
        numbers, self.suffixes, shapes, self.labels = packed
        self.version_id = version_id
        self.numbers: array[int] | None = None
        if numbers:
            self.numbers = array("i")
            self.numbers.frombytes(numbers)
        self.shapes = array("I")
        self.shapes.frombytes(shapes)
        self.count = len(self.shapes)
        self.shape_table = shape_table
        self.label_table = label_table
        # by position (a dict, not a list of None: the collector walks a list's every slot)
        self.made: dict[int, ArticleInfo] = {}

    @staticmethod
    def pack(
        rows: Iterable[tuple[Any, ...]],
        shape_ids: dict[Shape, int],
        label_table: dict[int | tuple[int, str], str],
    ) -> Packed:
        """Pack rows (number, suffix, label, deleted, item_counts, chapter_path); shapes not yet
        in shape_ids are added there (position = id), and the label of a number not yet in
        label_table (the first version to have it gives it)."""
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
            array("I", shapes).tobytes(),
            None if as_table else tuple(row[2] for row in ordered),
        )

    def get(
        self, key: tuple[int, str | None], default: ArticleInfo | None = None
    ) -> ArticleInfo | None:
        """The article numbered key = (number, suffix), else default."""
        found = self.find(*key)
        return default if found is None else found

    def find(self, number: int, suffix: str | None) -> ArticleInfo | None:
        """The article numbered (number, suffix), else None."""
        numbers = self.numbers
        if numbers is None:  # numbered 1 … count, no suffixes
            if suffix is None and 0 < number <= self.count:
                return self.made.get(number - 1) or self._make(number - 1, number, None)
            return None
        suffixes = self.suffixes
        if suffixes is None:  # plain numbering: at most one article per number
            if suffix is None:
                position = bisect_left(numbers, number)
                if position == len(numbers) or numbers[position] != number:
                    return None
                return self.made.get(position) or self._make(position, number, None)
            return None
        position = bisect_left(numbers, number)
        while position < len(numbers) and numbers[position] == number:
            if suffixes[position] == suffix:
                return self.made.get(position) or self._make(position, number, suffix)
            position += 1
        return None

    def _make(self, position: int, number: int, suffix: str | None) -> ArticleInfo:
        deleted, paragraph_count, item_counts, chapter_path = self.shape_table[
            self.shapes[position]
        ]
        labels = self.labels
        # ArticleInfo(version_id, number, suffix, label, deleted, paragraph_count, item_counts,
        # chapter_path), made as _ArticleInfoSlots (below)
        found = _ArticleInfoSlots()
        found.version_id = self.version_id
        found.number = number
        found.suffix = suffix
        if labels is not None:
            found.label = labels[position]
        else:
            found.label = self.label_table[number if suffix is None else (number, suffix)]
        found.deleted = deleted
        found.paragraph_count = paragraph_count
        found.item_counts = item_counts
        found.chapter_path = chapter_path
        found.__class__ = ArticleInfo
        made: ArticleInfo = found
        self.made[position] = made
        return made


class Timeline:
    """One law's dated versions as parallel lists, and a memo of the answers already given.

    Lookups of the same (version, in force or not, article) share one frozen Lookup, so the
    hot path is a bisect and two dict probes. The memo's key is one int made of the article
    number, the version's position and whether it is in force (a tuple only for 之一
    articles): a tuple per answer was one more object for the collector to count.
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

    def __init__(
        self,
        law: LawInfo,
        repeal: RepealInfo | None,
        starts: list[int],
        ends: tuple[int, ...],
        dated: tuple[VersionInfo, ...],
        fallback: VersionInfo | None,
        index: StatuteIndex,
    ) -> None:
        self.law = law
        self.repeal = repeal
        self.starts = starts
        self.ends = ends
        self.dated = dated
        self.fallback = fallback
        # opens the versions' articles on first use (StatuteIndex.version_articles); the index,
        # not a bound method: that was one more object per law for the collector to count
        self.index = index
        # keyed by number * slots + 2 * (position + 1) + in_force (position -1: no dated
        # version, the fallback), by (number, suffix, that slot) for 之一 articles; under
        # (slot,) the answer without an article, shared by every number the version lacks (no
        # dict of its own: one object less per law for the collector)
        self.slots = 2 * len(dated) + 2
        self.memo: dict[int | tuple[int, str, int] | tuple[int], Lookup] = {}

    def lookup(self, ordinal: int, number: int, suffix: str | None) -> Lookup:
        """The answer for a date (as an ordinal) and an article; see StatuteRepository.lookup."""
        position = bisect_right(self.starts, ordinal) - 1
        in_force = position >= 0 and ordinal < self.ends[position]
        if position < 0 and self.dated:
            position = 0  # not yet in force: the first version tells what will exist
        slot = 2 * (position + 1) + in_force
        key = number * self.slots + slot if suffix is None else (number, suffix, slot)
        found = self.memo.get(key)
        if found is None:
            found = self._answer(position, in_force, slot, number, suffix)
            if len(self.memo) >= _MEMO_LIMIT:
                self.memo.clear()
            self.memo[key] = found
        return found

    def _answer(
        self, position: int, in_force: bool, slot: int, number: int, suffix: str | None
    ) -> Lookup:
        """A new answer (not in the memo): the article made in place for a version numbered
        1 … n (most versions), by PackedArticles.find otherwise; one call, not five. The
        answer without an article is one per slot (memo key (slot,)), shared by every number
        the version lacks."""
        # no dated version: the newest undated one, never "in force"
        where = self.dated[position] if position >= 0 else self.fallback
        article = None
        if where is not None:
            articles = self.index.articles.get(where.id)
            if articles is None:
                articles = self.index.version_articles(where.id)
            if articles.numbers is None and suffix is None:
                if 0 < number <= articles.count:
                    article = articles.made.get(number - 1)
                    if article is None:
                        article = articles._make(number - 1, number, None)
            else:
                article = articles.find(number, suffix)
        if article is None:
            shared = self.memo.get((slot,))
            if shared is not None:
                return shared
        # Lookup(law, version, article, repeal, article_version), made as _LookupSlots (below)
        found = _LookupSlots()
        found.law = self.law
        found.version = where if in_force else None
        found.article = article
        found.repeal = self.repeal
        found.article_version = where
        found.__class__ = Lookup
        made: Lookup = found
        if article is None:
            self.memo[(slot,)] = made
        return made


# Answers are made as slot twins of the frozen dataclasses (`textnorm.slotted`), filled and
# given the dataclass as their __class__.
_LookupSlots = slot_twin(Lookup)
_ArticleInfoSlots = slot_twin(ArticleInfo)
