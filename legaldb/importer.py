"""Write a read corpus (and the repealed-law facts) into the database, in one transaction.

Rows go in as executemany batches of plain dicts (no ORM object per row). An import replaces
the earlier import of the same dataset; if anything fails, the transaction rolls back and what
was stored before is intact.
"""

from __future__ import annotations

import itertools
import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from legaldb import orm
from legaldb.alignment import align_versions
from legaldb.errors import ImportFailed
from legaldb.models import (
    CorpusRead,
    ImportReport,
    ParsedLaw,
    ParsedVersion,
    RepealedData,
    RepealFact,
)
from legaldb.repealed import REPEALED_DATASET, write_repealed
from textnorm import normalize_name

CORPUS_DATASET = "lawrefbook"
# The levels a lawrefbook snapshot claims to hold completely (see docs/database.md):
# every national law in force at the snapshot date, and the constitution.
COMPLETE_LEVEL_CANDIDATES = ("宪法", "法律")
CHUNK = 5_000

T = TypeVar("T")
Progress = Callable[[str, int, int], None]


def _chunks(rows: list[T], size: int = CHUNK) -> Iterator[list[T]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def delete_dataset(conn: sa.Connection, dataset: str) -> bool:
    """Delete everything an earlier import of dataset stored; False when there was none."""
    dataset_id = conn.scalar(
        sa.select(orm.DatasetManifest.id).where(orm.DatasetManifest.dataset == dataset)
    )
    if dataset_id is None:
        return False
    laws = sa.select(orm.Law.id).where(orm.Law.dataset_id == dataset_id)
    versions = sa.select(orm.Version.id).where(orm.Version.law_id.in_(laws))
    conn.execute(
        sa.delete(orm.Correspondence).where(
            sa.or_(
                orm.Correspondence.dataset_id == dataset_id,
                orm.Correspondence.from_law_id.in_(laws),
                orm.Correspondence.to_law_id.in_(laws),
            )
        )
    )
    conn.execute(
        sa.update(orm.RepealEvent)
        .where(orm.RepealEvent.successor_law_id.in_(laws))
        .values(successor_law_id=None)
    )
    conn.execute(
        sa.delete(orm.RepealEvent).where(
            sa.or_(orm.RepealEvent.dataset_id == dataset_id, orm.RepealEvent.law_id.in_(laws))
        )
    )
    conn.execute(sa.delete(orm.Article).where(orm.Article.version_id.in_(versions)))
    conn.execute(sa.delete(orm.Version).where(orm.Version.law_id.in_(laws)))
    conn.execute(sa.delete(orm.LawAlias).where(orm.LawAlias.law_id.in_(laws)))
    conn.execute(sa.delete(orm.Law).where(orm.Law.dataset_id == dataset_id))
    conn.execute(sa.delete(orm.ImportIssue).where(orm.ImportIssue.dataset_id == dataset_id))
    conn.execute(sa.delete(orm.DatasetManifest).where(orm.DatasetManifest.id == dataset_id))
    return True


def _new_manifest(conn: sa.Connection, dataset: str, source: str, snapshot: str) -> int:
    manifest_id = conn.scalar(
        sa.insert(orm.DatasetManifest)
        .values(
            dataset=dataset,
            source=source,
            snapshot=snapshot,
            imported_at=datetime.now(UTC),
            counts={},
            complete_levels=[],
            skipped=[],
            undated=[],
            differences=[],
        )
        .returning(orm.DatasetManifest.id)
    )
    if manifest_id is None:  # pragma: no cover - INSERT … RETURNING always yields the id
        raise ImportFailed(f"could not create the manifest of {dataset}")
    return manifest_id


def _issues(conn: sa.Connection, dataset_id: int, issues: Iterable[tuple[str, str]]) -> None:
    rows = [{"dataset_id": dataset_id, "path": p, "reason": r} for p, r in issues]
    if rows:
        conn.execute(sa.insert(orm.ImportIssue), rows)


def import_corpus(
    engine: Engine,
    corpus: CorpusRead,
    *,
    repealed: RepealedData | None = None,
    dataset: str = CORPUS_DATASET,
    progress: Progress | None = None,
) -> ImportReport:
    """Store corpus (replacing the earlier import of dataset), then the repealed-law facts.

    Replacing the corpus removes the curated correspondences into its laws; pass `repealed`
    (the CLI always does) to store them again in the same transaction.
    """
    started = time.perf_counter()
    try:
        with engine.begin() as conn:
            report = _write_corpus(conn, corpus, dataset, progress)
            if repealed is not None:
                _write_repealed_dataset(conn, repealed)
    except sa.exc.SQLAlchemyError as exc:
        raise ImportFailed(f"import of {corpus.source} rolled back: {exc}") from exc
    return ImportReport(
        dataset=report.dataset,
        counts=report.counts,
        skipped=report.skipped,
        undated=report.undated,
        seconds=time.perf_counter() - started,
    )


def import_repealed(engine: Engine, data: RepealedData) -> ImportReport:
    """Store the repealed-law facts alone (replacing their earlier import), one transaction."""
    started = time.perf_counter()
    try:
        with engine.begin() as conn:
            counts, issues = _write_repealed_dataset(conn, data)
    except sa.exc.SQLAlchemyError as exc:
        raise ImportFailed(f"import of {data.source} rolled back: {exc}") from exc
    return ImportReport(
        dataset=REPEALED_DATASET,
        counts=counts,
        skipped=tuple(f"{p}: {r}" for p, r in issues),
        undated=(),
        seconds=time.perf_counter() - started,
    )


def _write_repealed_dataset(
    conn: sa.Connection, data: RepealedData
) -> tuple[dict[str, int], list[tuple[str, str]]]:
    delete_dataset(conn, REPEALED_DATASET)
    dataset_id = _new_manifest(conn, REPEALED_DATASET, data.source, data.source)
    counts, issues = write_repealed(conn, data, dataset_id)
    _issues(conn, dataset_id, issues)
    conn.execute(
        sa.update(orm.DatasetManifest)
        .where(orm.DatasetManifest.id == dataset_id)
        .values(counts=counts, skipped=[f"{p}: {r}" for p, r in issues])
    )
    return counts, issues


def _unique_laws(
    conn: sa.Connection, laws: Iterable[ParsedLaw], issues: list[tuple[str, str]]
) -> list[ParsedLaw]:
    """Laws whose names are not taken (by this corpus or by another dataset)."""
    taken = set(conn.scalars(sa.select(orm.Law.name)))
    kept = []
    for law in laws:
        source = law.versions[0].source if law.versions else law.name
        if law.name in taken:
            issues.append((source, f"duplicate law name {law.name}: kept the first"))
        elif not law.versions:
            issues.append((source, f"{law.name}: no version"))
        else:
            taken.add(law.name)
            kept.append(law)
    return kept


def _write_corpus(
    conn: sa.Connection, corpus: CorpusRead, dataset: str, progress: Progress | None
) -> ImportReport:
    delete_dataset(conn, dataset)
    dataset_id = _new_manifest(conn, dataset, corpus.source, corpus.snapshot)
    issues: list[tuple[str, str]] = [(s.path, s.reason) for s in corpus.skipped]
    laws = _unique_laws(conn, corpus.laws, issues)

    law_ids = conn.scalars(
        sa.insert(orm.Law).returning(orm.Law.id, sort_by_parameter_order=True),
        [
            {
                "dataset_id": dataset_id,
                "name": law.name,
                "short_name": law.short_name,
                "level": law.level,
                "category": law.versions[0].category,
                "issuer": law.issuer,
            }
            for law in laws
        ],
    ).all()
    alias_rows = []
    for law, law_id in zip(laws, law_ids, strict=True):
        keys: set[str] = set()
        for alias in (law.name, law.short_name, *law.aliases):
            key = normalize_name(alias)
            if key and key not in keys:
                keys.add(key)
                alias_rows.append({"law_id": law_id, "alias": alias, "key": key})
    for chunk in _chunks(alias_rows):
        conn.execute(sa.insert(orm.LawAlias), chunk)

    versions: list[tuple[int, ParsedVersion]] = [
        (law_id, version)
        for law, law_id in zip(laws, law_ids, strict=True)
        for version in law.versions
    ]
    version_ids = conn.scalars(
        sa.insert(orm.Version).returning(orm.Version.id, sort_by_parameter_order=True),
        [_version_row(law_id, version) for law_id, version in versions],
    ).all()

    article_rows = _article_rows(versions, version_ids, issues)
    total = len(article_rows)
    for done, chunk in enumerate(_chunks(article_rows), start=1):
        _insert_articles(conn, chunk)
        if progress:
            progress("articles", min(done * CHUNK, total), total)

    aligned = _aligned_rows(dataset_id, laws, law_ids, versions, version_ids)
    for chunk in _chunks(aligned):
        conn.execute(sa.insert(orm.Correspondence), chunk)
    ids_by_name = {law.name: law_id for law, law_id in zip(laws, law_ids, strict=True)}
    repeals = _repeal_rows(dataset_id, corpus.repeals, ids_by_name, issues)
    if repeals:
        conn.execute(sa.insert(orm.RepealEvent), repeals)
    _issues(conn, dataset_id, issues)

    levels = Counter(law.level for law in laws)
    counts = {
        "laws": len(laws),
        "versions": len(version_ids),
        "articles": len(article_rows),
        "deleted_articles": sum(1 for row in article_rows if row["deleted"]),
        "aliases": len(alias_rows),
        "aligned": len(aligned),
        "repeal_events": len(repeals),
        "differences": len(corpus.differences),
        "skipped": len(issues),
        "undated": len(corpus.undated),
    } | {f"laws.{level}": n for level, n in sorted(levels.items())}
    complete = [level for level in COMPLETE_LEVEL_CANDIDATES if levels[level]]
    skipped = tuple(f"{path}: {reason}" for path, reason in issues)
    conn.execute(
        sa.update(orm.DatasetManifest)
        .where(orm.DatasetManifest.id == dataset_id)
        .values(
            counts=counts,
            complete_levels=complete,
            skipped=list(skipped),
            undated=list(corpus.undated),
            differences=list(corpus.differences),
        )
    )
    return ImportReport(dataset, counts, skipped, tuple(corpus.undated), 0.0)


def _repeal_rows(
    dataset_id: int,
    repeals: Iterable[RepealFact],
    ids_by_name: dict[str, int],
    issues: list[tuple[str, str]],
) -> list[dict[str, Any]]:
    rows = []
    for fact in repeals:
        law_id = ids_by_name.get(fact.law_name)
        if law_id is None:
            issues.append(
                (fact.repealed_by or fact.source, f"repeal of {fact.law_name}: no such law")
            )
            continue
        rows.append(
            {
                "dataset_id": dataset_id,
                "law_id": law_id,
                "repealed_on": fact.repealed_on,
                "repealed_by": fact.repealed_by,
                "successor_law_id": ids_by_name.get(fact.successor) if fact.successor else None,
                "source": fact.source,
                "note": fact.note,
            }
        )
    return rows


def _version_row(law_id: int, version: ParsedVersion) -> dict[str, Any]:
    return {
        "law_id": law_id,
        "label": version.label,
        "promulgated": version.promulgated,
        "effective_from": version.effective_from,
        "effective_to": version.effective_to,
        "effective_rule": version.effective_rule,
        "article_count": max((a.number for a in version.articles), default=0),
        "has_text": bool(version.articles),
        "source": version.source,
        "notes": list(version.notes),
        "sources": list(version.sources or (version.source,)),
    }


def _article_rows(
    versions: list[tuple[int, ParsedVersion]],
    version_ids: Sequence[int],
    issues: list[tuple[str, str]],
) -> list[dict[str, Any]]:
    rows = []
    for (_, version), version_id in zip(versions, version_ids, strict=True):
        seen: set[tuple[int, str]] = set()
        for article in version.articles:
            key = (article.number, article.suffix or "")
            if key in seen:
                issues.append((version.source, f"duplicate {article.label}: kept the first"))
                continue
            seen.add(key)
            rows.append(
                {
                    "version_id": version_id,
                    "number": article.number,
                    "suffix": article.suffix or "",
                    "label": article.label,
                    "deleted": article.deleted,
                    "item_counts": [len(p.items) for p in article.paragraphs],
                    "chapter_path": list(article.chapter_path),
                    "text": article.text,
                    "paragraphs": [[p.text, list(p.items)] for p in article.paragraphs],
                }
            )
    return rows


_ARTICLE_COLUMNS = ("version_id", "number", "suffix", "label", "deleted", "item_counts",
                    "chapter_path", "text", "paragraphs")  # fmt: skip
_JSON_COLUMNS = frozenset(("item_counts", "chapter_path", "paragraphs"))


def _insert_articles(conn: sa.Connection, rows: list[dict[str, Any]]) -> None:
    """Insert article rows; on PostgreSQL through COPY (a million articles: the server parses
    one stream instead of a statement per thousand rows), JSON as SQLAlchemy writes it."""
    if conn.dialect.name != "postgresql":
        conn.execute(sa.insert(orm.Article), rows)
        return
    columns = ", ".join(_ARTICLE_COLUMNS)
    with (
        conn.connection.dbapi_connection.cursor() as cursor,  # type: ignore[union-attr]
        cursor.copy(f"COPY article ({columns}) FROM STDIN") as copy,
    ):
        for row in rows:
            copy.write_row(
                [json.dumps(row[c]) if c in _JSON_COLUMNS else row[c] for c in _ARTICLE_COLUMNS]
            )


def _aligned_rows(
    dataset_id: int,
    laws: list[ParsedLaw],
    law_ids: Sequence[int],
    versions: list[tuple[int, ParsedVersion]],
    version_ids: Sequence[int],
) -> list[dict[str, Any]]:
    """Aligned correspondences between consecutive versions (with text) of each law."""
    ids = {id(version): vid for (_, version), vid in zip(versions, version_ids, strict=True)}
    rows = []
    for law, law_id in zip(laws, law_ids, strict=True):
        with_text = [v for v in law.versions if v.articles]
        for old, new in itertools.pairwise(with_text):
            for pair in align_versions(old.articles, new.articles):
                rows.append(
                    {
                        "dataset_id": dataset_id,
                        "from_law_id": law_id,
                        "from_version_id": ids[id(old)],
                        "from_number": pair.old_number,
                        "from_suffix": pair.old_suffix or "",
                        "to_law_id": law_id,
                        "to_version_id": ids[id(new)],
                        "to_number": pair.new_number,
                        "to_suffix": pair.new_suffix or "",
                        "kind": "aligned",
                        "similarity": pair.similarity,
                        "changed": pair.changed,
                        "note": None,
                    }
                )
    return rows
