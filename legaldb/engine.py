"""Engines for the two backends: embedded SQLite (WAL) and PostgreSQL through psycopg 3."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine, make_url

from legaldb.errors import DatabaseURLError

SQLITE_BUSY_TIMEOUT_MS = 30_000
PG_CONNECT_TIMEOUT_S = 2  # libpq's minimum; ?connect_timeout= in the URL overrides it


def normalize_url(url: str | URL) -> URL:
    """Parse url; plain postgresql:// means psycopg 3, the driver LexGate installs."""
    try:
        parsed = make_url(url)
    except sa.exc.ArgumentError as exc:
        raise DatabaseURLError(f"not a database URL: {url!r}") from exc
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise DatabaseURLError(f"unsupported database (sqlite or postgresql): {url!r}")
    return parsed


def ensure_sqlite_dir(url: URL) -> None:
    """Create the directory of a file-based SQLite database (var/ for the default URL)."""
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _rows_in_one_statement(engine: Engine) -> Engine:
    """The SQLite engine, its executemany INSERTs sent as multi-row INSERT … VALUES statements
    (SQLAlchemy's "insertmanyvalues", used only with RETURNING by default): one SQLite statement
    per table instead of one step per row. Each step releases the interpreter's lock, and a
    server's writer thread gets it back from the busy event loop only at the next switch
    interval. Not on PostgreSQL: psycopg sends an executemany in one pipeline already, and the
    multi-row statements (a new SQL text for each number of rows) cost its server and the
    process 1.5-2.5 ms more CPU per gate in `make soak`; the audit and round rows go there as one
    INSERT … SELECT FROM unnest per table, whatever the number of rows (`audit.tables.insert_all`)."""
    engine.dialect.use_insertmanyvalues_wo_returning = True
    return engine


def make_engine(url: str | URL, *, echo: bool = False) -> Engine:
    """An engine for url: SQLite with WAL, foreign keys and a busy timeout; or PostgreSQL."""
    parsed = normalize_url(url)
    if parsed.get_backend_name() == "sqlite":
        ensure_sqlite_dir(parsed)
        engine = sa.create_engine(parsed, echo=echo)
        sa.event.listen(engine, "connect", _sqlite_pragmas)
        return _rows_in_one_statement(engine)
    # A server that is down or unreachable must fail a request fast (a 503), not hang it:
    # libpq's connect_timeout (seconds) unless the URL sets its own.
    connect_args = (
        {} if "connect_timeout" in parsed.query else {"connect_timeout": PG_CONNECT_TIMEOUT_S}
    )
    return sa.create_engine(parsed, echo=echo, pool_pre_ping=True, connect_args=connect_args)


def dialect_insert(connection: sa.Connection, table: sa.Table) -> Any:
    """An INSERT of table in the connection's dialect, which has `on_conflict_do_nothing` and
    `on_conflict_do_update` (and `.excluded`) on both backends."""
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)


def describe_error(error: sa.exc.SQLAlchemyError) -> str:
    """The database's own one-line message of an error (no SQL, no background link)."""
    cause = getattr(error, "orig", None) or error
    lines = str(cause).strip().splitlines()
    return lines[0] if lines else type(error).__name__
