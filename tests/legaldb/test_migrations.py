"""Alembic: upgrade and downgrade on both backends; the models and the migrations agree."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from legaldb.engine import make_engine
from legaldb.migrate import current_revision, downgrade, head_revision, upgrade
from migrations.metadata import metadata

TABLES = set(metadata.tables)  # every package's model has its table, made by a migration


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def test_upgrade_from_empty_then_downgrade_to_base(database_url: str) -> None:
    """upgrade creates every table at head; downgrade to base removes them all."""
    assert _tables(database_url) == set()
    upgrade(database_url)
    assert _tables(database_url) == TABLES
    assert current_revision(database_url) == head_revision()
    downgrade(database_url, "base")
    assert _tables(database_url) == set()
    assert current_revision(database_url) is None


def test_upgrade_is_idempotent(database_url: str) -> None:
    """A second upgrade to head changes nothing."""
    upgrade(database_url)
    upgrade(database_url)
    assert current_revision(database_url) == head_revision()


def test_models_and_migrations_agree(database_url: str) -> None:
    """Autogenerate finds no difference between the ORM and the migrated schema."""
    upgrade(database_url)
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"compare_type": True, "compare_server_default": True}
            )
            diff = compare_metadata(context, metadata)
    finally:
        engine.dispose()
    assert diff == []


def test_migrations_run_from_any_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The script location is found from the installed package, not the working directory."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    upgrade(url)
    assert _tables(url) == TABLES


def test_env_takes_the_url_from_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a URL in the Alembic config, env.py uses LEXGATE_DATABASE_URL."""
    from alembic import command

    from legaldb.migrate import alembic_config
    from lexgate.settings import get_settings

    url = f"sqlite:///{tmp_path / 'from-settings.sqlite3'}"
    monkeypatch.setenv("LEXGATE_DATABASE_URL", url)
    get_settings.cache_clear()
    try:
        config = alembic_config("sqlite://")
        config.set_main_option("sqlalchemy.url", "")
        command.upgrade(config, "head")
    finally:
        get_settings.cache_clear()
    assert _tables(url) == TABLES


def test_revision_files_are_named_rev_slug() -> None:
    """Every revision file is <rev>_<slug>.py and declares that revision."""
    from legaldb.migrate import migrations_dir

    files = sorted((migrations_dir() / "versions").glob("*.py"))
    revisions = [f for f in files if f.name != "__init__.py"]
    assert revisions
    for path in revisions:
        rev, _, slug = path.stem.partition("_")
        assert slug, path.name
        assert f'revision: str = "{rev}"' in path.read_text(encoding="utf-8")


def test_statute_history_upgrade_keeps_existing_repeals(database_url: str) -> None:
    """0004 -> 0005 keeps repeal rows (source and note NULL) and allows an undated repeal;
    downgrading drops only the undated ones."""
    from datetime import UTC, date, datetime

    upgrade(database_url, "0004")
    engine = make_engine(database_url)
    try:
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO dataset_manifest (id, dataset, source, snapshot, imported_at,"
                    " counts, complete_levels, skipped, undated) VALUES (1, 'd', 's', 's', :at,"
                    " '{}', '[]', '[]', '[]')"
                ),
                {"at": datetime.now(UTC)},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO law (id, dataset_id, name, short_name, level) VALUES"
                    " (1, 1, '甲法', '甲法', '法律'), (2, 1, '乙法', '乙法', '法律')"
                )
            )
            conn.execute(
                sa.text(
                    "INSERT INTO repeal_event (dataset_id, law_id, repealed_on, repealed_by)"
                    " VALUES (1, 1, :on, '《丙法》第九条')"
                ),
                {"on": date(2020, 1, 1)},
            )
        upgrade(database_url)
        with engine.begin() as conn:
            row = conn.execute(sa.text("SELECT repealed_on, source FROM repeal_event")).one()
            assert (str(row[0]), row[1]) == ("2020-01-01", None)
            conn.execute(
                sa.text(
                    "INSERT INTO repeal_event (dataset_id, law_id, repealed_on, source)"
                    " VALUES (1, 2, NULL, 'census')"
                )
            )
        downgrade(database_url, "0004")
        with engine.connect() as conn:
            assert conn.scalar(sa.text("SELECT count(*) FROM repeal_event")) == 1
    finally:
        engine.dispose()
