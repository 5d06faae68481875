"""StatuteRepository: point-in-time answers about statutes, in memory, texts fetched lazily.

`StatuteRepository.load(engine)` reads the structure once (names, versions, article numbers,
repeals, successors) into a `StatuteIndex`, or with a `cache_dir` from the snapshot there
(legaldb.snapshot); `lookup` and friends then run no SQL. Article texts are read on demand and
kept in LRU caches.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from rapidfuzz import fuzz, process
from sqlalchemy.engine import Engine

from legaldb import orm
from legaldb.index import ArticleRow, StatuteIndex, Timeline, guess_level_of_name
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
)
from legaldb.repealed import REPEALED_DATASET
from textnorm import article_label, normalize_name

ARTICLE_TEXT_CACHE = 4096
VERSION_TEXT_CACHE = 512
VERSION_TEXTS_FORMAT = 1  # raise when the layout of _read_version_texts changes
_NAME_CACHE_LIMIT = 100_000
# An article's text and its 款 with their 项, as kept: (text, ((paragraph, (item, …)), …)).
TextRow = tuple[str, tuple[tuple[str, tuple[str, ...]], ...]]
_NOTHING = Lookup(law=None, version=None, article=None, repeal=None)
_UNRESOLVED = -1  # no law has this id: a name not yet looked up
# Built once: building a statement per call (its comparisons, its cache key) cost more than
# running it.
_ARTICLE_TEXT = sa.select(orm.Article.text, orm.Article.paragraphs).where(
    orm.Article.version_id == sa.bindparam("version_id"),
    orm.Article.number == sa.bindparam("number"),
    orm.Article.suffix == sa.bindparam("suffix"),
)
_VERSION_TEXTS = (
    sa.select(orm.Article.number, orm.Article.suffix, orm.Article.text, orm.Article.paragraphs)
    .where(orm.Article.version_id == sa.bindparam("version_id"))
    .order_by(orm.Article.number, orm.Article.suffix)
)


class StatuteRepository:
    """The statute database as the rest of LexGate sees it (frozen types, no ORM)."""

    def __init__(
        self,
        engine: Engine,
        index: StatuteIndex,
        manifests: tuple[Manifest, ...],
        derived_dir: Path | None = None,
    ):
        self._engine = engine
        self.derived_dir = derived_dir  # for data derived from these statutes; None: keep none
        self._index = index
        self._manifests = manifests
        self._complete = frozenset(level for m in manifests for level in m.complete_levels)
        self._name_ids: dict[str, int | None] = {}
        self._timelines: dict[str, Timeline | None] = {}
        self._article_text: Callable[[int, int, str | None], ArticleText | None] = lru_cache(
            maxsize=ARTICLE_TEXT_CACHE
        )(self._fetch_article_text)
        # Texts of whole versions already read, (text, 款 and 项) by article in article order:
        # article_text() looks here first. An ArticleText is made only for an article asked for
        # (a check reads a few articles of each version it reads).
        self._version_articles: dict[int, dict[tuple[int, str | None], TextRow]] = {}

    @classmethod
    def load(cls, engine: Engine, cache_dir: Path | None = None) -> StatuteRepository:
        """Read the structure of every law into memory (a second for the national corpus);
        with `cache_dir`, from the snapshot of this database's content kept there, written
        on the first load (legaldb.snapshot)."""
        if cache_dir is None:
            return cls(engine, *_read_index(engine))
        from legaldb.snapshot import (
            content_stamp,
            derived_dir,
            read_snapshot,
            snapshot_path,
            write_snapshot,
        )

        with engine.connect() as conn:
            stamp = content_stamp(conn)
        path = snapshot_path(cache_dir, engine.url)
        loaded = read_snapshot(path, stamp)
        if loaded is None:
            loaded = _read_index(engine)
            write_snapshot(path, stamp, *loaded)
        return cls(engine, *loaded, derived_dir(cache_dir, stamp))

    def after_fork(self) -> None:
        """In a forked worker process: open database connections of its own, never touching
        the parent's (SQLAlchemy's rule for multiprocessing: `dispose(close=False)`)."""
        self._engine.dispose(close=False)

    # --- names ----------------------------------------------------------------------------

    def _law_id(self, name: str) -> int | None:
        found = self._name_ids.get(name, _UNRESOLVED)
        if found != _UNRESOLVED:
            return found
        found = self._index.resolve_key(name)
        if len(self._name_ids) >= _NAME_CACHE_LIMIT:
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
        return self._index.version_articles(version_id).get((number, suffix or None))

    def article_count(self, version_id: int) -> int:
        """The number of the version's last article (刑法: 452; 民法典: 1,260)."""
        version = self._index.version_by_id.get(version_id)
        return 0 if version is None else version.article_count

    def lookup(self, name: str, number: int, suffix: str | None, as_of: date) -> Lookup:
        """Law, version in force, article and repeal for one citation: no SQL.

        When no version is in force (not yet, or no longer), `article` comes from the nearest
        version (`article_version`), so a caller can tell "repealed" from "never existed".
        """
        try:
            timeline = self._timelines[name]
        except KeyError:
            timeline = self._timeline_for(name)
        if timeline is None:
            return _NOTHING
        return timeline.lookup(as_of.toordinal(), number, suffix or None)

    def _timeline_for(self, name: str) -> Timeline | None:
        law_id = self._law_id(name)
        timeline = None if law_id is None else self._index.timeline(law_id)
        if len(self._timelines) >= _NAME_CACHE_LIMIT:
            self._timelines.clear()
        self._timelines[name] = timeline
        return timeline

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
        structure = self._index.version_articles(version_id)
        return [
            ArticleText(info, text, _paragraphs(paragraphs))
            for key, (text, paragraphs) in self._version_texts(version_id).items()
            if (info := structure.get(key)) is not None
        ]

    def _fetch_article_text(
        self, version_id: int, number: int, suffix: str | None
    ) -> ArticleText | None:
        info = self.article(version_id, number, suffix)
        if info is None:
            return None
        if self.derived_dir is not None or version_id in self._version_articles:
            row = self._version_texts(version_id).get((number, suffix))
            return None if row is None else ArticleText(info, row[0], _paragraphs(row[1]))
        with self._engine.connect() as conn:
            found = conn.execute(
                _ARTICLE_TEXT, {"version_id": version_id, "number": number, "suffix": suffix or ""}
            ).one_or_none()
        return (
            None if found is None else ArticleText(info, found.text, _paragraphs(found.paragraphs))
        )

    def _version_texts(self, version_id: int) -> dict[tuple[int, str | None], TextRow]:
        texts = self._version_articles.get(version_id)
        if texts is None:
            if len(self._version_articles) >= VERSION_TEXT_CACHE:
                self._version_articles.clear()
            texts = self._version_articles[version_id] = {
                (number, suffix): (text, paragraphs)
                for number, suffix, text, paragraphs in self._kept_version_texts(version_id)
            }
        return texts

    def _kept_version_texts(self, version_id: int) -> list[tuple[Any, ...]]:
        from legaldb.snapshot import read_marshalled, write_marshalled

        path = (
            None if self.derived_dir is None else self.derived_dir / f"texts-{version_id}.marshal"
        )
        rows = read_marshalled(path) if path is not None else None
        if not (isinstance(rows, tuple) and rows and rows[0] == VERSION_TEXTS_FORMAT):
            rows = (VERSION_TEXTS_FORMAT, self._read_version_texts(version_id))
            if path is not None:
                write_marshalled(path, rows)
        return list(rows[1])

    def _read_version_texts(self, version_id: int) -> list[tuple[Any, ...]]:
        """(number, suffix, text, paragraphs) of every article of a version, in order."""
        with self._engine.connect() as conn:
            rows = conn.execute(_VERSION_TEXTS, {"version_id": version_id}).all()
        return [
            (row.number, row.suffix or None, row.text,
             tuple((text, tuple(items)) for text, items in row.paragraphs or ()))
            for row in rows
        ]  # fmt: skip

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
            complete_levels=tuple(sorted(self._complete, key=_level_rank)),
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
            "articles": sum(self._index.article_totals.values()),
            "repealed": len(self._index.repeals),
        }


def _read_index(engine: Engine) -> tuple[StatuteIndex, tuple[Manifest, ...]]:
    """The structure of every law, read from the tables."""
    index = StatuteIndex()
    with engine.connect() as conn:
        laws = [
            LawInfo(id=row.id, name=row.name, short_name=row.short_name, level=row.level,
                    issuer=row.issuer)
            for row in conn.execute(
                sa.select(orm.Law.id, orm.Law.name, orm.Law.short_name, orm.Law.level,
                          orm.Law.issuer).order_by(orm.Law.id)
            )
        ]  # fmt: skip
        aliases = conn.execute(
            sa.select(orm.LawAlias.law_id, orm.LawAlias.alias, orm.LawAlias.key).order_by(
                orm.LawAlias.id
            )
        )
        index.add_laws(laws, ((r.law_id, r.alias, r.key) for r in aliases))
        index.add_versions(_versions(conn))
        index.add_article_rows(_article_rows(conn))
        index.add_repeals(
            RepealInfo(r.law_id, r.repealed_on, r.repealed_by, r.successor_law_id, r.source, r.note)
            for r in conn.execute(sa.select(orm.RepealEvent))
        )
        index.add_successors(_successors(conn))
        manifests = tuple(_manifests(conn))
    return index, manifests


def _level_rank(level: str) -> int:
    return LEVELS.index(level) if level in LEVELS else len(LEVELS)


def _paragraphs(raw: Any) -> tuple[Paragraph, ...]:
    return tuple(Paragraph(text, tuple(items)) for text, items in raw or ())


def _versions(conn: sa.Connection) -> list[VersionInfo]:
    v = orm.Version
    rows = conn.execute(
        sa.select(v.id, v.law_id, v.label, v.promulgated, v.effective_from, v.effective_to,
                  v.article_count, v.has_text, v.source, v.effective_rule, v.sources)
    )  # fmt: skip
    return [
        VersionInfo(id_, law_id, label, promulgated, start, end, count, has_text, source, rule,
                    tuple(sources or ()))
        for id_, law_id, label, promulgated, start, end, count, has_text, source, rule, sources
        in rows
    ]  # fmt: skip


def _article_rows(conn: sa.Connection) -> Iterator[ArticleRow]:
    """Article structure; the JSON columns are read as text and parsed once per distinct value."""
    a = orm.Article
    rows = conn.execute(
        sa.select(a.version_id, a.number, a.suffix, a.label, a.deleted,
                  sa.cast(a.item_counts, sa.Text), sa.cast(a.chapter_path, sa.Text))
    ).tuples()  # fmt: skip
    counts_cache: dict[str, tuple[int, ...]] = {}
    path_cache: dict[str, tuple[str, ...]] = {}
    for version_id, number, suffix, label, deleted, counts_json, path_json in rows:
        item_counts = counts_cache.get(counts_json)
        if item_counts is None:
            item_counts = counts_cache[counts_json] = tuple(json.loads(counts_json))
        chapter_path = path_cache.get(path_json)
        if chapter_path is None:
            chapter_path = path_cache[path_json] = tuple(json.loads(path_json))
        yield version_id, number, suffix or None, label, bool(deleted), item_counts, chapter_path


def _successors(conn: sa.Connection) -> list[Successor]:
    c = orm.Correspondence
    rows = conn.execute(
        sa.select(c.from_law_id, c.from_version_id, c.from_number, c.from_suffix, c.to_law_id,
                  c.to_version_id, c.to_number, c.to_suffix, c.kind, c.similarity, c.changed,
                  c.note)
    )  # fmt: skip
    return [
        Successor(r[0], r[1], r[2], r[3] or None, r[4], r[5], r[6], r[7] or None, r[8], r[9],
                  bool(r[10]), r[11])
        for r in rows
    ]  # fmt: skip


def _manifests(conn: sa.Connection) -> list[Manifest]:
    m = orm.DatasetManifest
    rows = conn.execute(
        sa.select(
            m.source, m.snapshot, m.imported_at, m.counts, m.complete_levels, m.skipped
        ).order_by(m.dataset == REPEALED_DATASET, m.id)
    )
    return [
        Manifest(
            source=row.source,
            snapshot=row.snapshot,
            imported_at=row.imported_at.isoformat(),
            counts={k: int(v) for k, v in row.counts.items()},
            complete_levels=tuple(row.complete_levels),
            skipped=tuple(row.skipped),
        )
        for row in rows
    ]


def database_stats(engine: Engine) -> dict[str, Any]:
    """What the database holds, by level, with repeals, skipped files and undated versions."""
    law, version, article = orm.Law, orm.Version, orm.Article
    successor = sa.orm.aliased(orm.Law)
    with engine.connect() as conn:
        laws: dict[str, int] = dict(
            conn.execute(sa.select(law.level, sa.func.count()).group_by(law.level)).tuples().all()
        )
        versions: dict[str, int] = dict(
            conn.execute(
                sa.select(law.level, sa.func.count())
                .join(version, version.law_id == law.id)
                .group_by(law.level)
            )
            .tuples()
            .all()
        )
        articles: dict[str, int] = dict(
            conn.execute(
                sa.select(law.level, sa.func.count())
                .join(version, version.law_id == law.id)
                .join(article, article.version_id == version.id)
                .group_by(law.level)
            )
            .tuples()
            .all()
        )
        deleted = conn.scalar(
            sa.select(sa.func.count()).select_from(article).where(article.deleted.is_(True))
        )
        repealed = [
            {
                "law": name,
                "repealed_on": on.isoformat() if on else None,
                "repealed_by": by,
                "successor": succ,
                "source": source,
                "note": note,
            }
            for name, on, by, succ, source, note in conn.execute(
                sa.select(
                    law.name,
                    orm.RepealEvent.repealed_on,
                    orm.RepealEvent.repealed_by,
                    successor.name,
                    orm.RepealEvent.source,
                    orm.RepealEvent.note,
                )
                .join(orm.RepealEvent, orm.RepealEvent.law_id == law.id)
                .outerjoin(successor, successor.id == orm.RepealEvent.successor_law_id)
                .order_by(law.name)
            )
        ]
        manifest = orm.DatasetManifest
        datasets = [
            {
                "dataset": row.dataset,
                "source": row.source,
                "snapshot": row.snapshot,
                "imported_at": row.imported_at.isoformat(),
                "counts": row.counts,
                "complete_levels": row.complete_levels,
                "undated": row.undated,
                "differences": row.differences or [],
                "skipped": [
                    {"path": path, "reason": reason}
                    for path, reason in conn.execute(
                        sa.select(orm.ImportIssue.path, orm.ImportIssue.reason)
                        .where(orm.ImportIssue.dataset_id == row.id)
                        .order_by(orm.ImportIssue.id)
                    )
                ],
            }
            for row in conn.execute(sa.select(manifest).order_by(manifest.id))
        ]
    levels = sorted(set(laws) | set(versions), key=_level_rank)
    return {
        "by_level": {
            level: {
                "laws": laws.get(level, 0),
                "versions": versions.get(level, 0),
                "articles": articles.get(level, 0),
            }
            for level in levels
        },
        "totals": {
            "laws": sum(laws.values()),
            "versions": sum(versions.values()),
            "articles": sum(articles.values()),
            "deleted_articles": deleted or 0,
            "repealed_laws": len(repealed),
        },
        "repealed": repealed,
        "datasets": datasets,
    }


def bundled_import_outdated(engine: Engine) -> bool:
    """True when the stored corpus came from the bundled data but not from all of it now
    bundled, or under older import rules (a database built before the history and flk sources
    were added, or before IMPORT_RULES last changed)."""
    from legaldb.corpus.statutes import BUNDLED_STATUTES_SOURCE

    with engine.connect() as conn:
        source = conn.scalar(
            sa.select(orm.DatasetManifest.source).where(
                orm.DatasetManifest.dataset != REPEALED_DATASET
            )
        )
    if source is None or not source.startswith("legaldb/data/"):
        return False
    return source != BUNDLED_STATUTES_SOURCE


def is_empty(engine: Engine) -> bool:
    """True when no law is stored (a fresh database)."""
    with engine.connect() as conn:
        return not conn.scalar(sa.select(sa.func.count()).select_from(orm.Law))
