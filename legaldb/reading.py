"""Reading the statutes from the tables (SQLAlchemy): the index of every law, article texts,
and what `lexgate db` reports.

Apart from `legaldb.repository` (in memory) so that a process whose statute snapshot is fresh
answers without importing SQLAlchemy or the ORM (`StatuteRepository.open_kept`): this module
is imported when a process reads the tables.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from legaldb import orm
from legaldb.index import ArticleRow, StatuteIndex
from legaldb.models import (
    LawInfo,
    Manifest,
    RepealInfo,
    Successor,
    VersionInfo,
    level_rank,
)
from legaldb.repealed import REPEALED_DATASET

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


def read_index(engine: Engine) -> tuple[StatuteIndex, tuple[Manifest, ...]]:
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


def read_article_text(
    engine: Engine, version_id: int, number: int, suffix: str | None
) -> tuple[str, Any] | None:
    """One article's text and its 款 and 项 as stored; None when the version has no such row."""
    with engine.connect() as conn:
        found = conn.execute(
            _ARTICLE_TEXT, {"version_id": version_id, "number": number, "suffix": suffix or ""}
        ).one_or_none()
    return None if found is None else (found.text, found.paragraphs)


def read_version_texts(engine: Engine, version_id: int) -> list[tuple[Any, ...]]:
    """(number, suffix, text, paragraphs) of every article of a version, in order."""
    with engine.connect() as conn:
        rows = conn.execute(_VERSION_TEXTS, {"version_id": version_id}).all()
    return [
        (row.number, row.suffix or None, row.text,
         tuple((text, tuple(items)) for text, items in row.paragraphs or ()))
        for row in rows
    ]  # fmt: skip


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
    levels = sorted(set(laws) | set(versions), key=level_rank)
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
