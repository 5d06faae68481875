"""Run the Alembic migrations programmatically, from any working directory."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from legaldb.engine import make_engine, normalize_url
from legaldb.errors import MigrationError


def migrations_dir() -> Path:
    """The installed `migrations` package (env.py, versions/), found without importing it."""
    spec = importlib.util.find_spec("migrations")
    if spec is None or not spec.submodule_search_locations:
        raise MigrationError("the `migrations` package is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def alembic_config(url: str | sa.URL) -> Config:
    """An Alembic Config for url (no alembic.ini needed; logging left to the caller)."""
    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    rendered = normalize_url(url).render_as_string(hide_password=False)
    config.set_main_option("sqlalchemy.url", rendered.replace("%", "%%"))
    config.attributes["configure_logger"] = False
    return config


def upgrade(url: str | sa.URL, revision: str = "head") -> None:
    """Migrate the database at url up to revision (creating the schema from empty)."""
    try:
        command.upgrade(alembic_config(url), revision)
    except sa.exc.SQLAlchemyError as exc:
        raise MigrationError(f"upgrade to {revision} failed: {exc}") from exc


def downgrade(url: str | sa.URL, revision: str = "base") -> None:
    """Migrate the database at url down to revision ("base" drops the whole schema)."""
    try:
        command.downgrade(alembic_config(url), revision)
    except sa.exc.SQLAlchemyError as exc:
        raise MigrationError(f"downgrade to {revision} failed: {exc}") from exc


def head_revision() -> str | None:
    """The newest revision in migrations/versions."""
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


def current_revision(url: str | sa.URL) -> str | None:
    """The revision the database at url is at (None: never migrated)."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()
