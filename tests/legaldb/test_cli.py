"""`lexgate db …` through typer's CliRunner, against real databases."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from legaldb.engine import make_engine
from legaldb.importer import import_corpus
from legaldb.migrate import head_revision, upgrade
from legaldb.repealed import read_repealed
from lexgate.cli import app
from lexgate.settings import get_settings
from tests.legaldb.factories import small_corpus

runner = CliRunner()

GOOD_LAW = """# 中华人民共和国测试法

2020年1月1日 第十三届全国人民代表大会常务委员会第十五次会议通过

2020年3月1日 施行

<!-- INFO END -->

## 第一章 总则

第一条 为了测试导入，制定本法。

第二条 本法自2020年3月1日起施行。
"""


@pytest.fixture
def db_url(database_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """LEXGATE_DATABASE_URL pointing at a fresh database on each backend."""
    monkeypatch.setenv("LEXGATE_DATABASE_URL", database_url)
    get_settings.cache_clear()
    yield database_url
    get_settings.cache_clear()


def _run(*args: str) -> str:
    result = runner.invoke(app, ["db", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_init_twice_is_idempotent_and_stats(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """init migrates and imports the bundled corpus once; the second init changes nothing
    (and, with no cache directory, prepares nothing)."""
    first = _run("init", "--no-prepare")
    assert "schema migrated from empty" in first
    assert "importing the bundled corpus" in first
    assert "Prepared" not in first
    stats_after_first = json.loads(_run("stats", "--json"))

    monkeypatch.setenv("LEXGATE_CACHE_DIR", "")
    get_settings.cache_clear()
    second = _run("init")
    assert "schema already at revision" in second
    assert "nothing to import" in second
    assert "No cache directory (LEXGATE_CACHE_DIR is empty): nothing to prepare." in second
    stats_after_second = json.loads(_run("stats", "--json"))
    assert stats_after_second["totals"] == stats_after_first["totals"]

    totals = stats_after_first["totals"]
    assert totals["laws"] > 1000 and totals["articles"] > 50_000
    assert totals["repealed_laws"] > 300  # clauses, the census, interpretations, 民法典's nine
    assert stats_after_first["by_level"]["法律"]["laws"] > 250
    corpus = next(d for d in stats_after_first["datasets"] if d["dataset"] == "lawrefbook")
    assert corpus["complete_levels"] == ["宪法", "法律"]
    assert corpus["skipped"] and all(s["path"] and s["reason"] for s in corpus["skipped"])

    text = _run("stats")
    for expected in ("法律", "行政法规", "司法解释", "Repealed laws: ", "9 from repealed_laws"):
        assert expected in text
    assert "claims to cover completely: 宪法、法律" in text
    assert "(--details)" in text and len(text.splitlines()) < 60  # short by default
    details = _run("stats", "--details")
    assert "中华人民共和国合同法: repealed 2021-01-01" in details
    assert (
        "中华人民共和国外资企业法: repealed 2020-01-01 by 《中华人民共和国外商投资法》第四十二条"
        in details
    )
    differences = _run("sources", "刑法")
    assert "versions held by lawrefbook and flk differ" in differences


def test_import_lawrefbook_skips_broken_files(db_url: str, tmp_path: Path) -> None:
    """Broken files are reported by name with a reason; the rest imports; stats lists them."""
    tree = tmp_path / "lawrefbook"
    (tree / "民法商法").mkdir(parents=True)
    (tree / "行政法规").mkdir()
    (tree / "民法商法" / "测试法(2020-01-01).md").write_text(GOOD_LAW, encoding="utf-8")
    (tree / "民法商法" / "无标题.md").write_text("只有一些文字。\n\n没有标题。\n", encoding="utf-8")
    (tree / "民法商法" / "空文件.md").write_text("", encoding="utf-8")
    (tree / "行政法规" / "乱码.md").write_bytes(b"\xff\xfe\x00garbage\x81\x82")

    output = _run("import-lawrefbook", "--no-prepare", str(tree))
    assert "Imported" in output and "Prepared" not in output
    stats = json.loads(_run("stats", "--json"))
    corpus = next(d for d in stats["datasets"] if d["dataset"] == "lawrefbook")
    assert corpus["source"].startswith(str(tree))  # merged with the bundled history and flk
    skipped = {s["path"]: s["reason"] for s in corpus["skipped"]}
    for broken in ("民法商法/无标题.md", "民法商法/空文件.md", "行政法规/乱码.md"):
        assert skipped.get(broken)
    assert "行政法规/乱码.md" not in _run("stats")  # short by default
    assert "行政法规/乱码.md" in _run("stats", "--details")


def test_prepare_makes_the_derived_files_once(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`db prepare` refuses a database without statutes; after an import it makes the
    snapshot, the lexicon and each version's texts and quote index; a second run makes
    nothing; after another import it makes them anew and removes the earlier ones."""
    result = runner.invoke(app, ["db", "prepare"])
    assert result.exit_code == 1 and "holds no statutes: run `lexgate db init`" in result.output
    upgrade(db_url)
    engine = make_engine(db_url)
    try:
        import_corpus(engine, small_corpus(), repealed=read_repealed())
    finally:
        engine.dispose()
    monkeypatch.setenv("LEXGATE_CACHE_DIR", str(tmp_path / "cache"))
    get_settings.cache_clear()
    first = " ".join(_run("prepare").split())
    assert len(list((tmp_path / "cache").glob("statutes-*.marshal"))) == 1
    (derived,) = (tmp_path / "cache").glob("derived-*")
    made = sorted(path.name.split("-")[0] for path in derived.iterdir())
    versions = made.count("texts")
    assert versions == 4 and made.count("quotes") == versions and "lexicon.marshal" in made
    assert f"Prepared {versions} versions' derived files in {derived}: 8 made" in first
    again = " ".join(_run("prepare", "--jobs", "1").split())
    assert f"Prepared {versions} versions' derived files in {derived}: 0 made" in again
    assert "(1 workers)" in again and "Removed" not in again
    engine = make_engine(db_url)
    try:
        import_corpus(engine, small_corpus(source="again"), repealed=read_repealed())
    finally:
        engine.dispose()
    after_import = " ".join(_run("prepare").split())
    (newer,) = (tmp_path / "cache").glob("derived-*")  # the earlier content's is removed
    assert newer != derived and len(list(newer.glob("texts-*"))) == versions
    assert f"Removed {derived} (derived from this database's earlier statutes)." in after_import


def test_migrate_commands(db_url: str) -> None:
    """migrate upgrade and downgrade move the schema; stats refuses an unmigrated database."""
    result = runner.invoke(app, ["db", "stats"])
    assert result.exit_code == 1 and "lexgate db init" in result.output
    assert f"at revision {head_revision()}" in _run("migrate", "upgrade")
    assert "at revision base" in _run("migrate", "downgrade", "base")


def test_bad_database_url_is_a_clean_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """An unsupported URL ends with exit code 1 and a one-line message, no traceback."""
    monkeypatch.setenv("LEXGATE_DATABASE_URL", "mysql://u@localhost/x")
    get_settings.cache_clear()
    try:
        result = runner.invoke(app, ["db", "init"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 1
    assert "unsupported database" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
