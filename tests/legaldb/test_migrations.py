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
