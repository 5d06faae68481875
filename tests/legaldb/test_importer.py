"""The importer on both backends: bulk writes, replacement, one transaction, bad data."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from legaldb import orm
from legaldb.engine import make_engine
from legaldb.errors import RepealedDataError
from legaldb.importer import import_corpus, import_repealed
from legaldb.migrate import upgrade
from legaldb.repealed import BUNDLED_REPEALED, read_repealed
from tests.legaldb.factories import (
    CIVIL_CODE,
    COMPANY,
    article,
    law,
    small_corpus,
    version,
)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """A migrated, empty database on each backend."""
    upgrade(database_url)
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


def _count(engine: Engine, model: type[orm.Base], *where: sa.ColumnElement[bool]) -> int:
    with engine.connect() as conn:
        return conn.scalar(sa.select(sa.func.count()).select_from(model).where(*where)) or 0


def test_import_stores_laws_versions_articles(engine: Engine) -> None:
    """Every law, alias, version and article of the corpus is stored, with the manifest."""
    report = import_corpus(engine, small_corpus())
    assert report.counts["laws"] == 3
    assert report.counts["versions"] == 4
    assert report.counts["articles"] == 5 + 7 + 1260 + 1
    assert _count(engine, orm.Law) == 3
    assert _count(engine, orm.Version) == 4
    assert _count(engine, orm.Article) == 1273
    assert _count(engine, orm.Article, orm.Article.deleted.is_(True)) == 1
    with engine.connect() as conn:
        keys = set(conn.scalars(sa.select(orm.LawAlias.key)))
        manifest = conn.execute(sa.select(orm.DatasetManifest.__table__)).one()
        suffixed = conn.execute(
            sa.select(orm.Article.label, orm.Article.item_counts, orm.Article.paragraphs).where(
                orm.Article.suffix == "之一"
            )
        ).one()
        items = conn.scalar(sa.select(orm.Article.item_counts).where(orm.Article.number == 6))
    assert {COMPANY, "测试公司法", "测试公司法典", CIVIL_CODE, "民法典"} <= keys
    assert manifest.complete_levels == ["法律"]
    assert manifest.snapshot == "test-snapshot"
    assert "测试/坏文件.md: no title" in manifest.skipped
    assert suffixed.label == "第四条之一"
    assert items == [0, 2]


def test_import_aligns_consecutive_versions(engine: Engine) -> None:
    """Consecutive versions with text get aligned correspondences with their similarity."""
    report = import_corpus(engine, small_corpus())
    assert report.counts["aligned"] == 4  # old 1, 2, 3, 5 (4 was deleted)
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(
                orm.Correspondence.from_number,
                orm.Correspondence.to_number,
                orm.Correspondence.similarity,
                orm.Correspondence.changed,
            ).where(orm.Correspondence.kind == "aligned")
        ).all()
    moved = {(r.from_number, r.to_number): (r.similarity, r.changed) for r in rows}
    assert moved[3, 4] == (1.0, False)
    assert moved[1, 1][1] is True


def test_reimport_replaces_the_earlier_import(engine: Engine) -> None:
    """Importing the same dataset twice leaves one copy, with the second one's content."""
    import_corpus(engine, small_corpus())
    smaller = small_corpus()
    smaller = replace(smaller, laws=smaller.laws[:1], snapshot="second")
    import_corpus(engine, smaller)
    assert _count(engine, orm.Law) == 1
    assert _count(engine, orm.Article) == 12
    assert _count(engine, orm.DatasetManifest) == 1
    with engine.connect() as conn:
        assert conn.scalar(sa.select(orm.DatasetManifest.snapshot)) == "second"


def test_failed_import_leaves_the_earlier_data_intact(engine: Engine) -> None:
    """An import interrupted half-way rolls back: the earlier import is still all there."""
    import_corpus(engine, small_corpus())

    def interrupt(stage: str, done: int, total: int) -> None:
        raise RuntimeError(f"interrupted while writing {stage} ({done}/{total})")

    bigger = small_corpus(source="second")
    with pytest.raises(RuntimeError, match="interrupted"):
        import_corpus(engine, bigger, progress=interrupt)
    assert _count(engine, orm.Law) == 3
    assert _count(engine, orm.Article) == 1273
    with engine.connect() as conn:
        assert conn.scalar(sa.select(orm.DatasetManifest.source)) == "test"


def test_bad_data_is_reported_and_the_rest_imported(engine: Engine) -> None:
    """A duplicate law, a duplicate article and a law without versions become import issues."""
    duplicate_law = law(COMPANY, (version(COMPANY, "重复", date(2000, 1, 1), None, ()),))
    twice = law(
        "中华人民共和国重号法",
        (
            version(
                "中华人民共和国重号法",
                "2000年",
                date(2000, 1, 1),
                None,
                (article(1, "第一条的文字。"), article(1, "又一个第一条。"), article(2, "二。")),
            ),
        ),
    )
    empty = law("中华人民共和国空法", (version("中华人民共和国空法", "x", None, None, ()),))
    empty = replace(empty, versions=())
    report = import_corpus(engine, small_corpus(extra_laws=(duplicate_law, twice, empty)))
    reasons = "\n".join(report.skipped)
    assert f"duplicate law name {COMPANY}" in reasons
    assert "duplicate 第一条" in reasons
    assert "中华人民共和国空法: no version" in reasons
    assert report.counts["laws"] == 4
    with engine.connect() as conn:
        issues = conn.execute(sa.select(orm.ImportIssue.path, orm.ImportIssue.reason)).all()
        kept = conn.scalar(
            sa.select(orm.Article.text)
            .join(orm.Version, orm.Version.id == orm.Article.version_id)
            .join(orm.Law, orm.Law.id == orm.Version.law_id)
            .where(orm.Law.name == "中华人民共和国重号法", orm.Article.number == 1)
        )
    assert ("测试/坏文件.md", "no title") in issues
    assert len(issues) == 4
    assert kept == "第一条的文字。"


def test_repealed_laws_import_with_curated_successors(engine: Engine) -> None:
    """The nine repealed laws: one text-less version each, repeal events, curated successors."""
    import_corpus(engine, small_corpus(), repealed=read_repealed())
    with engine.connect() as conn:
        contract = conn.execute(
            sa.select(orm.Version)
            .join(orm.Law, orm.Law.id == orm.Version.law_id)
            .where(orm.Law.name == "中华人民共和国合同法")
        ).one()
        repeal = conn.execute(
            sa.select(orm.RepealEvent.repealed_on, orm.RepealEvent.repealed_by, orm.Law.name)
            .join(orm.Law, orm.Law.id == orm.RepealEvent.successor_law_id)
            .where(orm.RepealEvent.law_id == contract.law_id)
        ).one()
        successor = conn.execute(
            sa.select(orm.Correspondence.to_number, orm.Correspondence.changed).where(
                orm.Correspondence.from_law_id == contract.law_id,
                orm.Correspondence.from_number == 107,
            )
        ).one()
        changed_notes = set(
            conn.scalars(
                sa.select(orm.Correspondence.note).where(
                    orm.Correspondence.changed.is_(True), orm.Correspondence.kind == "curated"
                )
            )
        )
    assert (contract.has_text, contract.article_count) == (False, 428)
    assert (contract.effective_from, contract.effective_to) == (date(1999, 10, 1), date(2021, 1, 1))
    assert repeal == (date(2021, 1, 1), "中华人民共和国民法典第一千二百六十条", CIVIL_CODE)
    assert tuple(successor) == (577, False)
    assert "诉讼时效由二年改为三年" in changed_notes
    assert None not in changed_notes
    raw = json.loads(BUNDLED_REPEALED.read_text(encoding="utf-8"))
    expected = sum(len(item["articles"]) for item in raw["correspondence"])
    assert _count(engine, orm.Correspondence, orm.Correspondence.kind == "curated") == expected
    assert _count(engine, orm.RepealEvent) == 9


def test_repealed_targets_are_checked_against_the_successor(engine: Engine) -> None:
    """A curated successor article beyond the successor's articles is reported, not stored."""
    corpus = small_corpus()
    short_code = law(
        CIVIL_CODE,
        (
            version(
                CIVIL_CODE,
                "2020年",
                date(2021, 1, 1),
                None,
                tuple(article(n, f"条文{n}") for n in range(1, 601)),
            ),
        ),
    )
    corpus = replace(corpus, laws=(corpus.laws[0], short_code))
    import_corpus(engine, corpus, repealed=read_repealed())
    with engine.connect() as conn:
        reasons = list(conn.scalars(sa.select(orm.ImportIssue.reason)))
        highest = conn.scalar(sa.select(sa.func.max(orm.Correspondence.to_number)))
    assert any("第1165条: no such article" in reason for reason in reasons)
    assert highest is not None and highest <= 600


def test_reimporting_the_corpus_keeps_repealed_successors_when_given(engine: Engine) -> None:
    """Replacing the corpus with the repealed facts re-links 合同法第一百零七条 to the new 民法典."""
    repealed = read_repealed()
    import_corpus(engine, small_corpus(), repealed=repealed)
    import_corpus(engine, small_corpus(), repealed=repealed)
    assert _count(engine, orm.RepealEvent, orm.RepealEvent.successor_law_id.is_(None)) == 0
    assert _count(engine, orm.Correspondence, orm.Correspondence.to_number == 577) == 1
    assert _count(engine, orm.DatasetManifest) == 2


def test_import_repealed_alone_is_replaceable(engine: Engine) -> None:
    """import_repealed twice keeps one copy of the nine laws."""
    import_corpus(engine, small_corpus())
    import_repealed(engine, read_repealed())
    report = import_repealed(engine, read_repealed())
    assert report.counts["laws"] == 9
    assert _count(engine, orm.Law) == 3 + 9


@pytest.mark.parametrize(
    "content",
    ["not json", json.dumps({"laws": [{"name": "x"}], "correspondence": []})],
    ids=["not-json", "missing-fields"],
)
def test_malformed_repealed_file_is_an_error(tmp_path: Path, content: str) -> None:
    """A malformed repealed_laws.json raises RepealedDataError naming the file."""
    path = tmp_path / "repealed.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(RepealedDataError, match=r"repealed\.json"):
        read_repealed(path)
