"""StatuteRepository: point-in-time answers about statutes, in memory, texts fetched lazily.

`StatuteRepository.load(engine)` reads the structure once (names, versions, article numbers,
repeals, successors) into a `StatuteIndex`, or with a `cache_dir` from the snapshot there
(legaldb.snapshot); `lookup` and friends then run no SQL. Article texts are read on demand and
kept in LRU caches. The SQL lives in `legaldb.reading`, imported when the tables are read:
`open_kept` answers from a fresh snapshot of a SQLite file without SQLAlchemy.
"""

from __future__ import annotations

import marshal
from array import array
from collections.abc import Callable, Iterable, Iterator
from datetime import date
from functools import lru_cache
from itertools import count
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from rapidfuzz import fuzz, process

from legaldb.index import (
    NAME_CACHE_LIMIT,
    Lookups,
    StatuteIndex,
    guess_level_of_name,
    lookup_function,
)
from legaldb.models import (
    LEVELS,
    ArticleEvent,
    ArticleInfo,
    ArticleText,
    LawInfo,
    Lookup,
    Manifest,
    Paragraph,
    RepealInfo,
    Successor,
    VersionInfo,
    level_rank,
)
from textnorm import article_label, normalize_name
from textnorm.marshalled import read_marshalled_parts, write_marshalled_parts
from textnorm.slotted import filler

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

ARTICLE_TEXT_CACHE = 4096
VERSION_TEXT_CACHE = 512
# Raise when the layout of `_VersionTexts.pack` or of legaldb.reading.read_version_texts changes.
VERSION_TEXTS_FORMAT = 3
# An article's text and its 款 with their 项, as kept: (text, ((paragraph, (item, …)), …)).
TextRow = tuple[str, tuple[tuple[str, tuple[str, ...]], ...]]
_UNRESOLVED = -1  # no law has this id: a name not yet looked up


class StatuteRepository:
    """The statute database as the rest of LexGate sees it (frozen types, no ORM)."""

    def __init__(
        self,
        engine: Engine | Callable[[], Engine],
        index: StatuteIndex,
        manifests: tuple[Manifest, ...],
        derived_dir: Path | None = None,
    ):
        """`engine` reads the article texts; or what makes it when the tables are first read
        (a repository opened from its snapshot may never read them)."""
        self._made_engine: Engine | None = None if callable(engine) else engine
        self._make_engine: Callable[[], Engine] | None = engine if callable(engine) else None
        self.derived_dir = derived_dir  # for data derived from these statutes; None: keep none
        self._index = index
        self._manifests = manifests
        self._complete = frozenset(level for m in manifests for level in m.complete_levels)
        self._name_ids: dict[str, int | None] = {}
        # lookup, bound to what answers it: the compiled path over the Lookups (no frame at
        # all), or its method where that is not built; the method below says what it does
        self._lookups = Lookups(index)
        self.lookup = lookup_function(self._lookups)  # type: ignore[method-assign,assignment]
        self._article_text: Callable[[int, int, str | None], ArticleText | None] = lru_cache(
            maxsize=ARTICLE_TEXT_CACHE
        )(self._fetch_article_text)
        # Texts of whole versions already read (`_VersionTexts`: an article's text, 款 and 项
        # decoded when asked for): article_text() looks here first. An ArticleText is made only
        # for an article asked for (a check reads a few articles of each version it reads).
        self._version_articles: dict[int, _VersionTexts] = {}

    @classmethod
    def load(cls, engine: Engine, cache_dir: Path | None = None) -> StatuteRepository:
        """Read the structure of every law into memory (a second for the national corpus);
        with `cache_dir`, from the snapshot of this database's content kept there, written
        on the first load (legaldb.snapshot)."""
        from legaldb.reading import read_index

        if cache_dir is None:
            return cls(engine, *read_index(engine))
        from legaldb.snapshot import (
            content_stamp,
            derived_dir,
            read_snapshot,
            snapshot_path,
            write_snapshot,
        )

        with engine.connect() as conn:
            stamp = content_stamp(lambda sql: [tuple(row) for row in conn.exec_driver_sql(sql)])
        path = snapshot_path(cache_dir, engine.url.render_as_string(hide_password=True))
        loaded = read_snapshot(path, stamp)
        if loaded is None:
            loaded = read_index(engine)
            write_snapshot(path, stamp, *loaded)
        return cls(engine, *loaded, derived_dir(cache_dir, stamp))

    @classmethod
    def open_kept(cls, url: str, cache_dir: Path) -> StatuteRepository | None:
        """The repository of the SQLite file at `url` from its snapshot in cache_dir when that
        is fresh and holds statutes, without importing SQLAlchemy (the stamp is read through
        sqlite3, legaldb.snapshot.fresh_sqlite_snapshot; the engine is made when the tables
        are first read); None otherwise, and `load` reads the database."""
        from legaldb.snapshot import fresh_sqlite_snapshot

        kept = fresh_sqlite_snapshot(url, cache_dir)
        if kept is None or not kept[0].laws:
            return None

        def engine() -> Engine:
            from legaldb.engine import make_engine

            return make_engine(url)

        return cls(engine, *kept)

    @property
    def _engine(self) -> Engine:
        if self._made_engine is None and self._make_engine is not None:
            self._made_engine = self._make_engine()
        if self._made_engine is None:  # pragma: no cover - one of the two is always given
            raise RuntimeError("a StatuteRepository needs an engine")
        return self._made_engine

    def after_fork(self) -> None:
        """In a forked worker process: open database connections of its own, never touching
        the parent's (SQLAlchemy's rule for multiprocessing: `dispose(close=False)`)."""
        if self._made_engine is not None:
            self._made_engine.dispose(close=False)

    # --- names ----------------------------------------------------------------------------

    def _law_id(self, name: str) -> int | None:
        found = self._name_ids.get(name, _UNRESOLVED)
        if found != _UNRESOLVED:
            return found
        found = self._index.resolve_key(name)
        if len(self._name_ids) >= NAME_CACHE_LIMIT:
            self._name_ids.clear()
        self._name_ids[name] = found
        return found

    def resolve(self, name: str) -> LawInfo | None:
        """The law a name or alias refers to (normalised; with or without 中华人民共和国)."""
        law_id = self._law_id(name)
        return None if law_id is None else self._index.laws[law_id]

    def law(self, law_id: int) -> LawInfo | None:
        """The law with this id."""
        return self._index.laws.get(law_id)

    def laws(self) -> list[LawInfo]:
        """Every law, in id order."""
        return sorted(self._index.laws.values(), key=lambda law: law.id)

    def lexicon(self) -> dict[str, str]:
        """Every alias as written and its normalised key -> canonical name (for the extractor)."""
        return dict(self._index.lexicon)

    def search_laws(self, q: str, limit: int = 20) -> list[LawInfo]:
        """Laws whose names or aliases contain q (exact first), else the closest names."""
        key = normalize_name(q)
        if not key:
            return []
        exact = self._index.resolve_key(key)
        hits: dict[int, tuple[int, int, int]] = {}
        if exact is not None:
            hits[exact] = (0, 0, 0)
        for alias_key, law_id in self._index.keys.items():
            if key in alias_key and law_id not in hits:
                law = self._index.laws[law_id]
                rank = 1 if alias_key.startswith(key) else 2
                hits[law_id] = (rank, LEVELS.index(law.level) if law.level in LEVELS else 99,
                                len(law.name))  # fmt: skip
        if not hits:
            names = {law.id: normalize_name(law.name) for law in self._index.laws.values()}
            for _, _, law_id in process.extract(
                key, names, scorer=fuzz.partial_ratio, limit=limit, score_cutoff=60
            ):
                hits.setdefault(law_id, (3, 0, len(hits)))
        ranked = sorted(hits, key=lambda i: (hits[i], i))[:limit]
        return [self._index.laws[i] for i in ranked]

    def guess_level(self, name: str) -> str:
        """The level of a known law, else the one its name suggests (中华人民共和国…法 -> 法律)."""
        law = self.resolve(name)
        return law.level if law is not None else guess_level_of_name(name)

    # --- versions -------------------------------------------------------------------------

    def versions(self, law_id: int) -> list[VersionInfo]:
        """All versions of a law, oldest first."""
        return list(self._index.versions.get(law_id, ()))

    def version(self, version_id: int) -> VersionInfo | None:
        """The version with this id."""
        return self._index.version_by_id.get(version_id)

    def version_in_force(self, law_id: int, as_of: date) -> VersionInfo | None:
        """The version in force on as_of, None before the first and after a repeal."""
        return self._index.version_in_force(law_id, as_of)

    def latest_version(self, law_id: int) -> VersionInfo | None:
        """The newest version of a law (in force or not)."""
        versions = self._index.versions.get(law_id)
        return versions[-1] if versions else None

    def repeal(self, law_id: int) -> RepealInfo | None:
        """The law's repeal, if it was repealed."""
        return self._index.repeals.get(law_id)

    # --- articles -------------------------------------------------------------------------

    def article(
        self, version_id: int, number: int, suffix: str | None = None
    ) -> ArticleInfo | None:
        """The structure of one article of a version (deleted ones included, marked)."""
        return self._index.article(version_id, number, suffix or None)

    def article_count(self, version_id: int) -> int:
        """The number of the version's last article (刑法: 452; 民法典: 1,260)."""
        version = self._index.version_by_id.get(version_id)
        return 0 if version is None else version.article_count

    def lookup(self, name: str, number: int, suffix: str | None, as_of: date) -> Lookup:
        """Law, version in force, article and repeal for one citation: no SQL.

        When no version is in force (not yet, or no longer), `article` comes from the nearest
        version (`article_version`), so a caller can tell "repealed" from "never existed".
        Each repository answers it with `Lookups.lookup` compiled (`lookup_function`, bound
        in `__init__`); this method runs the same steps in Python, for the class and its
        readers, and shares their answers.
        """
        return self._lookups.lookup(name, number, suffix, as_of)

    def successors(
        self, law_id: int, number: int, suffix: str | None = None, version_id: int | None = None
    ) -> list[Successor]:
        """Articles that took over this one (curated first); only from version_id when given."""
        found = self._index.successors_of(law_id, number, suffix or None)
        if version_id is None:
            return list(found)
        return [s for s in found if s.from_version_id in (version_id, None)]

    def article_history(
        self, law_id: int, number: int, suffix: str | None = None
    ) -> list[ArticleEvent]:
        """The versions (with text) in which an article appeared, stayed, changed, moved or was
        deleted, oldest first: followed through the aligned pairs of consecutive versions."""
        versions = [v for v in self.versions(law_id) if v.has_text]
        events: list[ArticleEvent] = []
        current: tuple[int, str | None] | None = None
        for index, version in enumerate(versions):
            if current is None:
                article = self.article(version.id, number, suffix)
                if article is not None and not article.deleted:
                    current = (number, suffix or None)
                    events.append(ArticleEvent(version, "appeared", number, suffix or None,
                                               article.label))  # fmt: skip
                continue
            previous = versions[index - 1]
            aligned = next(
                (s for s in self.successors(law_id, *current, previous.id)
                 if s.kind == "aligned" and s.to_version_id == version.id),
                None,
            )  # fmt: skip
            if aligned is not None:
                moved = (aligned.to_number, aligned.to_suffix) != current
                event = "moved" if moved else ("changed" if aligned.changed else "unchanged")
                current = (aligned.to_number, aligned.to_suffix)
                label = article_label(*current)
                events.append(ArticleEvent(version, event, *current, label, aligned.similarity))
                continue
            same = self.article(version.id, *current)
            if same is not None and not same.deleted:  # rewritten beyond recognition
                events.append(ArticleEvent(version, "changed", *current, same.label))
            else:
                events.append(ArticleEvent(version, "deleted", *current, article_label(*current)))
                current = None
        return events

    def article_text(
        self, version_id: int, number: int, suffix: str | None = None
    ) -> ArticleText | None:
        """An article with its text and 款/项 (one query on a cache miss; with a derived_dir,
        its version's texts are read once and kept there, see `articles_text`)."""
        return self._article_text(version_id, number, suffix or None)

    def articles_text(self, version_id: int) -> list[ArticleText]:
        """Every article of a version with its text, in order (one query on a cache miss;
        with a derived_dir, kept there as one file per version for the next process: a batch
        check reads a few hundred versions' texts, a file each instead of a query per article)."""
        article = self._index.article
        return [
            _article_text(info, text, paragraphs)
            for (number, suffix), (text, paragraphs) in self._version_texts(version_id).items()
            if (info := article(version_id, number, suffix)) is not None
        ]

    def _fetch_article_text(
        self, version_id: int, number: int, suffix: str | None
    ) -> ArticleText | None:
        info = self.article(version_id, number, suffix)
        if info is None:
            return None
        if self.derived_dir is not None or version_id in self._version_articles:
            row = self._version_texts(version_id).get((number, suffix))
            return None if row is None else _article_text(info, *row)
        from legaldb.reading import read_article_text

        found = read_article_text(self._engine, version_id, number, suffix)
        return None if found is None else _article_text(info, *found)

    def _version_texts(self, version_id: int) -> _VersionTexts:
        texts = self._version_articles.get(version_id)
        if texts is None:
            if len(self._version_articles) >= VERSION_TEXT_CACHE:
                self._version_articles.clear()
            texts = self._version_articles[version_id] = self._kept_version_texts(version_id)
        return texts

    def keep_version_texts(self, version_id: int) -> bool:
        """Make the version's texts file in derived_dir, as its first reader would, unless it
        is there in the current format; True when made (legaldb.prepare makes every version's
        at import, so that no worker reads them from the tables)."""
        path = self._texts_path(version_id)
        if path is None or _read_texts(path) is not None:
            return False
        self._texts_from_tables(version_id, path)
        return True

    def _texts_path(self, version_id: int) -> Path | None:
        return (
            None if self.derived_dir is None else self.derived_dir / f"texts-{version_id}.marshal"
        )

    def _kept_version_texts(self, version_id: int) -> _VersionTexts:
        path = self._texts_path(version_id)
        kept = _read_texts(path) if path is not None else None
        if kept is not None:
            (_, numbers, suffixes), parts = kept
            keys = zip(array("q", numbers).tolist(), suffixes, strict=True)
            return _VersionTexts(keys, *parts)
        return _VersionTexts(*self._texts_from_tables(version_id, path))

    def _texts_from_tables(
        self, version_id: int, path: Path | None
    ) -> tuple[tuple[tuple[int, str | None], ...], bytes, bytes]:
        """The version's texts read from the tables (`_VersionTexts.pack`), and kept in path
        when given: the keys' numbers and suffixes apart (zipped again at a fraction of what
        unmarshalling a tuple per key cost), the rows and where they start as byte strings
        read in place (`write_marshalled_parts`)."""
        from legaldb.reading import read_version_texts

        keys, data, starts = _VersionTexts.pack(read_version_texts(self._engine, version_id))
        if path is not None:
            numbers = array("q", [number for number, _ in keys]).tobytes()
            suffixes = tuple(suffix for _, suffix in keys)
            write_marshalled_parts(path, (VERSION_TEXTS_FORMAT, numbers, suffixes), [data, starts])
        return keys, data, starts

    # --- the data set ---------------------------------------------------------------------

    def manifest(self) -> Manifest:
        """The corpus manifest (complete levels and skipped files of every dataset merged)."""
        if not self._manifests:
            return Manifest(source="", snapshot="", imported_at="")
        first = self._manifests[0]
        return Manifest(
            source="; ".join(m.source for m in self._manifests),
            snapshot=first.snapshot,
            imported_at=first.imported_at,
            counts=dict(first.counts),
            complete_levels=tuple(sorted(self._complete, key=level_rank)),
            skipped=tuple(s for m in self._manifests for s in m.skipped),
        )

    def manifests(self) -> tuple[Manifest, ...]:
        """Each imported dataset's manifest, the corpus first."""
        return self._manifests

    def covers_completely(self, level: str) -> bool:
        """True when the data claims to hold every statute of this level (see docs)."""
        return level in self._complete

    def stats(self) -> dict[str, Any]:
        """Counts of laws, versions and articles in memory (for benchmarks and `db stats`)."""
        return {
            "laws": len(self._index.laws),
            "versions": len(self._index.version_by_id),
            "articles": self._index.article_total(),
            "repealed": len(self._index.repeals),
        }


class _VersionTexts:
    """A version's texts as kept: each article's (text, 款 and 项) marshalled on its own, one
    after the other in one byte string, and loaded when the article is asked for. A check asks
    for a few articles of each version it reads (848 of the 10,322 articles of the 83 versions
    read for the first 600 flzx answers): decoding every text from UTF-8 as the file was read
    cost more than the rest of the check's reading."""

    __slots__ = ("_data", "_place", "_starts")

    def __init__(
        self,
        keys: Iterable[tuple[int, str | None]],
        data: bytes | memoryview,
        starts: bytes | memoryview,
    ):
        self._place = dict(zip(keys, count()))  # the last of equal keys
        self._data = data  # bytes, or a view of the bytes a file was read into
        # Where each row starts in data, then where it ends (read in place).
        self._starts = memoryview(starts).cast("I")

    @staticmethod
    def pack(
        rows: Iterable[tuple[Any, ...]],
    ) -> tuple[tuple[tuple[int, str | None], ...], bytes, bytes]:
        """The plain layout (keys, data, starts) of (number, suffix, text, paragraphs) rows."""
        keys, parts, starts = [], [], array("I", [0])
        for number, suffix, text, paragraphs in rows:
            keys.append((number, suffix))
            parts.append(marshal.dumps((text, paragraphs)))
            starts.append(starts[-1] + len(parts[-1]))
        return tuple(keys), b"".join(parts), starts.tobytes()

    def _row(self, place: int) -> TextRow:
        starts = self._starts
        row: TextRow = marshal.loads(self._data[starts[place] : starts[place + 1]])
        return row

    def get(self, key: tuple[int, str | None]) -> TextRow | None:
        """The article's (text, 款 and 项); None when the version has no such article."""
        place = self._place.get(key)
        return None if place is None else self._row(place)

    def items(self) -> Iterator[tuple[tuple[int, str | None], TextRow]]:
        """Every article's key and row, in article order."""
        for key, place in self._place.items():
            yield key, self._row(place)


def _read_texts(path: Path) -> tuple[tuple[Any, ...], list[memoryview]] | None:
    """A texts file's value and parts when it is in the current format (None when missing,
    corrupt, truncated or old)."""
    kept = read_marshalled_parts(path)
    if kept is None or not _current_texts(kept[0]) or len(kept[1]) != 2:
        return None
    return kept[0], kept[1]


def _current_texts(kept: object) -> TypeGuard[tuple[Any, ...]]:
    """Whether a texts file's value is in the current format (not missing, corrupt or old)."""
    return isinstance(kept, tuple) and len(kept) == 3 and kept[0] == VERSION_TEXTS_FORMAT


# An article text is made for each article a check reads, with a 款 each: filled into a
# `textnorm.slotted.filler` subclass, as the index's records are, rather than through the frozen
# dataclasses' __init__ (object.__setattr__ for each field).
_ArticleTextFiller = filler(ArticleText)
_ParagraphFiller = filler(Paragraph)


def _article_text(info: ArticleInfo, text: str, raw_paragraphs: Any) -> ArticleText:
    """ArticleText(info, text, its 款 as kept: (text, (item, …)) pairs)."""
    paragraphs = []
    for paragraph_text, items in raw_paragraphs or ():
        paragraph = _ParagraphFiller()
        paragraph.text = paragraph_text
        paragraph.items = tuple(items)
        paragraph.__class__ = Paragraph
        paragraphs.append(paragraph)
    made = _ArticleTextFiller()
    made.info = info
    made.text = text
    made.paragraphs = tuple(paragraphs)
    made.__class__ = ArticleText
    article_text: ArticleText = made
    return article_text
