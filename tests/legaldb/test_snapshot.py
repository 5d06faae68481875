"""The statute index snapshot: loaded from disk, it answers as the tables do; stale is rebuilt."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from sqlalchemy import Connection

from legaldb.engine import make_engine
from legaldb.importer import import_corpus
from legaldb.migrate import upgrade
from legaldb.repealed import read_repealed
from legaldb.repository import StatuteRepository
from legaldb.snapshot import (
    STATUTE_TABLES,
    content_stamp,
    read_snapshot,
    snapshot_path,
    sqlite_stamp,
)
from tests.legaldb.factories import CIVIL_CODE, COMPANY, LOCAL, article, law, small_corpus, version

NAMES = [COMPANY, "测试公司法典", CIVIL_CODE, "合同法", LOCAL, "不存在法"]
DATES = [date(1990, 1, 1), date(2019, 6, 1), date(2024, 6, 30), date(2024, 7, 1)]
ARTICLES = [(1, None), (4, None), (4, "之一"), (6, None), (107, None), (1260, None), (1261, None)]


def _answers(repo: StatuteRepository) -> list[object]:
    """Everything the hot path answers, for a grid of names, articles and dates."""
    answers: list[object] = [repo.stats(), repo.manifests(), repo.lexicon(), repo.laws()]
    for name in NAMES:
        law = repo.resolve(name)
        answers.append(law)
        if law is None:
            continue
        answers += [repo.versions(law.id), repo.repeal(law.id)]
        for number, suffix in ARTICLES:
            answers.append(repo.successors(law.id, number, suffix))
            answers += [repo.lookup(name, number, suffix, day) for day in DATES]
            answers += [repo.article(v.id, number, suffix) for v in repo.versions(law.id)]
    return answers


def test_the_snapshot_answers_as_the_tables(database_url: str, tmp_path: Path) -> None:
    """A repository loaded from the snapshot gives every answer the tables give."""
    upgrade(database_url)
    engine = make_engine(database_url)
    import_corpus(engine, small_corpus(), repealed=read_repealed())
    from_tables = StatuteRepository.load(engine)
    first = StatuteRepository.load(engine, tmp_path)  # reads the tables, writes the file
    with engine.connect() as conn:
        stamp = content_stamp(lambda sql: conn.exec_driver_sql(sql).all())
    kept = read_snapshot(snapshot_path(tmp_path, engine.url.render_as_string()), stamp)
    assert kept is not None
    second = StatuteRepository.load(engine, tmp_path)  # from the file
    assert _answers(second) == _answers(first) == _answers(from_tables)
    assert second.article_text(second.lookup(COMPANY, 6, None, DATES[-1]).version.id, 6)  # type: ignore[union-attr]
    engine.dispose()


def test_kept_article_texts_are_the_tables_texts(database_url: str, tmp_path: Path) -> None:
    """With a cache directory, every article text and every version's texts (read from the
    version's file the first repository wrote) are what the tables give, deleted and missing
    articles included."""
    upgrade(database_url)
    engine = make_engine(database_url)
    import_corpus(engine, small_corpus(), repealed=read_repealed())
    from_tables = StatuteRepository.load(engine)
    StatuteRepository.load(engine, tmp_path).articles_text(1)  # writes version 1's file
    kept = StatuteRepository.load(engine, tmp_path)
    assert kept.derived_dir is not None and any(kept.derived_dir.glob("texts-*.marshal"))
    for statute in from_tables.laws():
        for v in from_tables.versions(statute.id):
            assert kept.articles_text(v.id) == from_tables.articles_text(v.id)
            for number, suffix in ARTICLES:
                expected = from_tables.article_text(v.id, number, suffix)
                assert kept.article_text(v.id, number, suffix) == expected
    engine.dispose()


def test_a_new_import_makes_the_snapshot_stale(database_url: str, tmp_path: Path) -> None:
    """After another import the next load reads the tables again and sees the new law."""
    upgrade(database_url)
    engine = make_engine(database_url)
    import_corpus(engine, small_corpus(), repealed=read_repealed())
    assert StatuteRepository.load(engine, tmp_path).resolve("测试新增条例") is None
    added = law("测试新增条例", (version("测试新增条例", "2022年", date(2022, 1, 1), None,
                                         (article(1, "新增条例第一条。"),)),))  # fmt: skip
    import_corpus(engine, small_corpus(extra_laws=(added,)), repealed=read_repealed())
    reloaded = StatuteRepository.load(engine, tmp_path)
    assert reloaded.resolve("测试新增条例") is not None
    assert _answers(reloaded) == _answers(StatuteRepository.load(engine))
    engine.dispose()


def _tables_one_by_one(conn: Connection) -> tuple[tuple[object, ...], ...]:
    """Each statute table's count and largest id, one aggregate query a table (the reference)."""
    return tuple(
        (name, *conn.exec_driver_sql(f"SELECT count(*), max(id) FROM {name}").one())
        for name in STATUTE_TABLES
    )


def test_the_stamp_counts_every_table_as_one_query_a_table(
    database_url: str, tmp_path: Path
) -> None:
    """The stamp's table figures are each table's `count(*), max(id)`: empty tables (None),
    after an import, and after a row is deleted that is not the last (the count alone moves);
    through SQLAlchemy and, for a SQLite file, through sqlite3 the same."""
    upgrade(database_url)
    engine = make_engine(database_url)
    stamps = []
    for step in ("empty", "imported", "deleted"):
        if step == "imported":
            import_corpus(engine, small_corpus(), repealed=read_repealed())
        if step == "deleted":
            with engine.begin() as conn:
                conn.exec_driver_sql("DELETE FROM article WHERE id = (SELECT min(id) FROM article)")
        with engine.connect() as conn:
            stamp = content_stamp(lambda sql: [tuple(row) for row in conn.exec_driver_sql(sql)])
            assert stamp[-1] == _tables_one_by_one(conn), step
        if engine.dialect.name == "sqlite":
            assert sqlite_stamp(engine.url.render_as_string()) == stamp
        stamps.append(stamp)
    assert stamps[0][-1][0] == ("law", 0, None)
    assert len(set(stamps)) == 3  # every step is seen
    assert stamps[1][-1][3][2] == stamps[2][-1][3][2]  # the deletion left the largest id
    engine.dispose()


def test_a_broken_or_unwritable_snapshot_is_not_an_error(tmp_path: Path) -> None:
    """A corrupt file is rebuilt; a cache directory that cannot be made is done without."""
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    import_corpus(engine, small_corpus(), repealed=read_repealed())
    expected = _answers(StatuteRepository.load(engine))
    cache = tmp_path / "cache"
    path = snapshot_path(cache, url)
    cache.mkdir()
    path.write_bytes(b"\x00 not a snapshot")
    assert _answers(StatuteRepository.load(engine, cache)) == expected
    assert path.stat().st_size > 1000  # written anew
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    assert _answers(StatuteRepository.load(engine, blocked / "cache")) == expected
    engine.dispose()


def test_a_fresh_snapshot_of_a_sqlite_file_is_opened_without_the_engine(
    database_url: str, tmp_path: Path
) -> None:
    """`open_kept` answers as `load` from the snapshot `load` wrote and reads texts through an
    engine made on first use; without a snapshot, after another import, and for a database
    that is not a SQLite file it gives None (the caller loads)."""
    upgrade(database_url)
    engine = make_engine(database_url)
    import_corpus(engine, small_corpus(), repealed=read_repealed())
    cache = tmp_path / "cache"
    assert StatuteRepository.open_kept(database_url, cache) is None  # no snapshot yet
    loaded = StatuteRepository.load(engine, cache)
    kept = StatuteRepository.open_kept(database_url, cache)
    if engine.dialect.name != "sqlite":
        assert kept is None
        engine.dispose()
        return
    assert kept is not None and kept.derived_dir == loaded.derived_dir
    assert _answers(kept) == _answers(loaded)
    for statute in loaded.laws():
        for v in loaded.versions(statute.id):
            assert kept.articles_text(v.id) == loaded.articles_text(v.id)
    added = law("测试新增条例", (version("测试新增条例", "2022年", date(2022, 1, 1), None,
                                         (article(1, "新增条例第一条。"),)),))  # fmt: skip
    import_corpus(engine, small_corpus(extra_laws=(added,)), repealed=read_repealed())
    assert StatuteRepository.open_kept(database_url, cache) is None  # stale
    engine.dispose()


def test_open_kept_never_makes_a_database(tmp_path: Path) -> None:
    """A SQLite file that does not exist, or holds no tables, is not opened, nor made."""
    missing = tmp_path / "missing.sqlite3"
    assert StatuteRepository.open_kept(f"sqlite:///{missing}", tmp_path / "cache") is None
    assert not missing.exists()
    empty = tmp_path / "empty.sqlite3"
    empty.write_bytes(b"")
    assert StatuteRepository.open_kept(f"sqlite:///{empty}", tmp_path / "cache") is None
