"""The statute index on disk: read from the tables once, then loaded by every process.

`StatuteRepository.load` reads the structure of every law (names, versions, article numbers,
repeals, successors); from SQL that is most of a second for the national corpus, and every
`lexgate` command and every web worker did it again. A snapshot keeps what it read as plain
values written with `marshal` (tuples, strings, ints, bytes: loads at C speed, and unlike
pickle cannot run code), stamped with the database's content: the schema revision, each
dataset's import time, and each statute table's row count and largest id. A process reads the
stamp (three statements) and loads the file when it matches; otherwise it reads the
tables and writes the file anew. Statutes change only through `lexgate db init` and
`db import-lawrefbook`, which stamp their datasets.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import re
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from textnorm.marshalled import read_marshalled, write_marshalled

if TYPE_CHECKING:  # imported where a snapshot is read: the stamp and derived files need neither
    from legaldb.index import StatuteIndex
    from legaldb.models import Manifest

SNAPSHOT_FORMAT = 8  # raise when the layout of to_plain() or of the stamp changes
STATUTE_TABLES = ("law", "law_alias", "version", "article", "repeal_event", "correspondence")
SQLITE_BUSY_TIMEOUT_S = 30  # as legaldb.engine's connections wait for a writer

_SQLITE_FILE = re.compile(r"sqlite(?:\+pysqlite)?:///(?P<path>/[A-Za-z0-9_./-]+)")
"""A SQLite URL of a file by its absolute path, with no query (what settings make of the
default): one the stamp can be read from through sqlite3, and that SQLAlchemy renders as is."""

_TABLE_FIGURES = "SELECT " + ", ".join(
    f"(SELECT count(*) FROM {name}), (SELECT max(id) FROM {name})" for name in STATUTE_TABLES
)
"""Every statute table's row count and largest id in one statement, each its own subquery:
SQLite counts a table alone from its b-tree's page headers and finds its largest rowid by
one descent, where `SELECT count(*), max(id)` steps through every row of an index (15 ms for
the 89,234 articles against 0.2 ms)."""

Stamp = tuple[Any, ...]
Fetch = Callable[[str], Sequence[Sequence[Any]]]


def content_stamp(fetch: Fetch) -> Stamp:
    """What identifies the statutes a database holds (cheap: one-row aggregates). `fetch` runs
    one plain SQL statement and gives its rows as the driver gives them, so that SQLAlchemy's
    connection (`exec_driver_sql`) and sqlite3's give the same stamp."""
    revision = fetch("SELECT version_num FROM alembic_version")
    datasets = tuple(
        (id_, dataset, str(imported_at))
        for id_, dataset, imported_at in fetch(
            "SELECT id, dataset, imported_at FROM dataset_manifest ORDER BY id"
        )
    )
    (counted,) = fetch(_TABLE_FIGURES)
    tables = tuple(
        (name, counted[2 * i], counted[2 * i + 1]) for i, name in enumerate(STATUTE_TABLES)
    )
    return (
        SNAPSHOT_FORMAT,
        marshal.version,
        revision[0][0] if revision else None,
        datasets,
        tables,
    )


def snapshot_path(cache_dir: Path, url: str) -> Path:
    """The snapshot file of one database, by its URL as shown (password left out)."""
    return cache_dir / f"statutes-{hashlib.sha256(url.encode()).hexdigest()[:16]}.marshal"


def fresh_sqlite_snapshot(
    url: str, cache_dir: Path
) -> tuple[StatuteIndex, tuple[Manifest, ...], Path] | None:
    """The index, manifests and derived directory of the SQLite file at `url` when its
    snapshot in cache_dir is fresh, read without SQLAlchemy: its import alone costs more than
    the whole rest of loading the snapshot. None for another URL, a database that cannot be
    read (`load` then says why), or a missing or stale snapshot."""
    stamp = sqlite_stamp(url)
    if stamp is None:
        return None
    loaded = read_snapshot(snapshot_path(cache_dir, url), stamp)
    return None if loaded is None else (*loaded, derived_dir(cache_dir, stamp))


def sqlite_stamp(url: str) -> Stamp | None:
    """The content stamp of the SQLite file at `url`, read through sqlite3; None for another
    URL or a database that cannot be read."""
    match = _SQLITE_FILE.fullmatch(url)
    if match is None or not os.path.isfile(match["path"]):
        return None
    try:
        uri = f"file:{quote(match['path'])}?mode=ro"
        with contextlib.closing(
            sqlite3.connect(uri, uri=True, timeout=SQLITE_BUSY_TIMEOUT_S)
        ) as connection:
            return content_stamp(lambda sql: connection.execute(sql).fetchall())
    except sqlite3.Error:
        return None


def derived_dir(cache_dir: Path, stamp: Stamp) -> Path:
    """Where data derived from these statutes is kept (the verifier's quote indexes): one
    directory per content stamp, so nothing derived from other statutes is ever read."""
    return cache_dir / f"derived-{hashlib.sha256(repr(stamp).encode()).hexdigest()[:16]}"


def kept_derived_dir(cache_dir: Path, url: str) -> Path | None:
    """The derived directory of the statutes the snapshot of `url` in cache_dir was made from
    (None without a readable one): read before a load replaces the snapshot, so that what was
    derived from the database's earlier content can be removed (`lexgate db prepare`)."""
    data = read_marshalled(snapshot_path(cache_dir, url))
    if not isinstance(data, dict) or "stamp" not in data:
        return None
    return derived_dir(cache_dir, data["stamp"])


def read_snapshot(path: Path, stamp: Stamp) -> tuple[StatuteIndex, tuple[Manifest, ...]] | None:
    """The index and manifests kept in `path`, or None when missing, unreadable or stale."""
    from legaldb.index import StatuteIndex
    from legaldb.models import Manifest

    data = read_marshalled(path)
    if not isinstance(data, dict) or data.get("stamp") != stamp:
        return None
    manifests = tuple(
        Manifest(source, snapshot, imported_at, counts, complete, skipped)
        for source, snapshot, imported_at, counts, complete, skipped in data["manifests"]
    )
    return StatuteIndex.from_plain(data["index"]), manifests


def write_snapshot(
    path: Path, stamp: Stamp, index: StatuteIndex, manifests: tuple[Manifest, ...]
) -> bool:
    """Write the snapshot (write_marshalled)."""
    data = {
        "stamp": stamp,
        "index": index.to_plain(),
        "manifests": [
            (m.source, m.snapshot, m.imported_at, m.counts, m.complete_levels, m.skipped)
            for m in manifests
        ],
    }
    return write_marshalled(path, data)
