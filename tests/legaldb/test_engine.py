"""Engines: SQLite pragmas and directory, PostgreSQL through psycopg 3, bad URLs."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from legaldb.engine import make_engine, normalize_url
from legaldb.errors import DatabaseURLError


def test_sqlite_pragmas(tmp_path: Path) -> None:
    """A SQLite engine runs in WAL mode with foreign keys and a busy timeout."""
    engine = make_engine(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    try:
        with engine.connect() as conn:
            mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
            foreign_keys = conn.exec_driver_sql("PRAGMA foreign_keys").scalar()
            timeout = conn.exec_driver_sql("PRAGMA busy_timeout").scalar()
    finally:
        engine.dispose()
    assert (mode, foreign_keys) == ("wal", 1)
    assert timeout is not None and timeout >= 1000


def test_relative_sqlite_path_creates_its_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default sqlite:///var/… URL works on a fresh clone: var/ is created."""
    monkeypatch.chdir(tmp_path)
    engine = make_engine("sqlite:///var/lexgate.sqlite3")
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    finally:
        engine.dispose()
    assert (tmp_path / "var" / "lexgate.sqlite3").exists()


def test_postgresql_engine(database_url: str) -> None:
    """Both backends answer a query; PostgreSQL goes through psycopg 3."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT 1")).scalar() == 1
        if engine.dialect.name == "postgresql":
            assert engine.dialect.driver == "psycopg"
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    ("url", "driver"),
    [
        ("postgresql://u@h/db", "postgresql+psycopg"),
        ("postgres://u@h/db", "postgresql+psycopg"),
        ("postgresql+psycopg://u@h/db", "postgresql+psycopg"),
        ("sqlite:///var/x.sqlite3", "sqlite"),
    ],
    ids=["postgresql", "postgres", "explicit", "sqlite"],
)
def test_normalize_url(url: str, driver: str) -> None:
    """Plain postgresql URLs get the psycopg 3 driver; others are kept."""
    assert normalize_url(url).drivername == driver


@pytest.mark.parametrize(
    "url", ["not a url", "mysql://u@h/db"], ids=["garbage", "unsupported-backend"]
)
def test_bad_urls(url: str) -> None:
    """Malformed or unsupported URLs raise DatabaseURLError."""
    with pytest.raises(DatabaseURLError):
        make_engine(url)
