"""Alembic environment: the URL from the config when given, else from LEXGATE_DATABASE_URL."""

from __future__ import annotations

import logging.config

import sqlalchemy as sa
from alembic import context

from legaldb.engine import ensure_sqlite_dir, normalize_url
from migrations.metadata import metadata

config = context.config
target_metadata = metadata

if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    logging.config.fileConfig(config.config_file_name, disable_existing_loggers=False)


def _database_url() -> sa.URL:
    given = config.get_main_option("sqlalchemy.url")
    if not given:
        from lexgate.settings import get_settings

        given = get_settings().database_url
    return normalize_url(given)


def _configure(connection: sa.Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        compare_server_default=True,
    )


def run_migrations_offline() -> None:
    """Emit SQL to stdout (`alembic upgrade head --sql`)."""
    url = _database_url()
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=url.get_backend_name() == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run against a live database, in one transaction."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = _database_url()
    ensure_sqlite_dir(url)
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    try:
        with engine.connect() as connection:
            _configure(connection)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
