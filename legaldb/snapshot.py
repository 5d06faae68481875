"""The statute index on disk: read from the tables once, then loaded by every process.

`StatuteRepository.load` reads the structure of every law (names, versions, article numbers,
repeals, successors); from SQL that is most of a second for the national corpus, and every
`lexgate` command and every web worker did it again. A snapshot keeps what it read as plain
values written with `marshal` (tuples, strings, ints, bytes: loads at C speed, and unlike
pickle cannot run code), stamped with the database's content: the schema revision, each
dataset's import time, and each statute table's row count and largest id. A process reads the
stamp (a few one-row queries) and loads the file when it matches; otherwise it reads the
tables and writes the file anew. Statutes change only through `lexgate db init` and
`db import-lawrefbook`, which stamp their datasets.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import tempfile
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from legaldb.index import StatuteIndex
from legaldb.models import Manifest

SNAPSHOT_FORMAT = 5  # raise when the layout of to_plain() changes
STATUTE_TABLES = ("law", "law_alias", "version", "article", "repeal_event", "correspondence")

Stamp = tuple[Any, ...]


def content_stamp(conn: sa.Connection) -> Stamp:
    """What identifies the statutes a database holds (cheap: one-row aggregates)."""
    revision = conn.execute(
        sa.select(sa.table("alembic_version", sa.column("version_num")).c.version_num)
    ).scalar()
    manifest = sa.table("dataset_manifest", sa.column("id"), sa.column("dataset"),
                        sa.column("imported_at"))  # fmt: skip
    datasets = tuple(
        (row.id, row.dataset, str(row.imported_at))
        for row in conn.execute(sa.select(manifest).order_by(manifest.c.id))
    )
    tables = []
    for name in STATUTE_TABLES:
        table = sa.table(name, sa.column("id"))
        count, largest = conn.execute(
            sa.select(sa.func.count(), sa.func.max(table.c.id)).select_from(table)
        ).one()
        tables.append((name, count, largest))
    return (SNAPSHOT_FORMAT, marshal.version, revision, datasets, tuple(tables))


def snapshot_path(cache_dir: Path, url: sa.URL) -> Path:
    """The snapshot file of one database (named after its URL, password left out)."""
    shown = url.render_as_string(hide_password=True)
    return cache_dir / f"statutes-{hashlib.sha256(shown.encode()).hexdigest()[:16]}.marshal"


def derived_dir(cache_dir: Path, stamp: Stamp) -> Path:
    """Where data derived from these statutes is kept (the verifier's quote indexes): one
    directory per content stamp, so nothing derived from other statutes is ever read."""
    return cache_dir / f"derived-{hashlib.sha256(repr(stamp).encode()).hexdigest()[:16]}"


def read_marshalled(path: Path) -> object | None:
    """The value marshalled in path; None when missing or unreadable."""
    try:
        return marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None


def write_marshalled(path: Path, value: Any) -> bool:
    """Write value atomically (a reader sees the old file or the new one); False when the
    directory cannot be written (the caller works on without the file)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
        try:
            with os.fdopen(handle, "wb") as out:
                marshal.dump(value, out)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except (OSError, ValueError):
        return False
    return True


def read_snapshot(path: Path, stamp: Stamp) -> tuple[StatuteIndex, tuple[Manifest, ...]] | None:
    """The index and manifests kept in `path`, or None when missing, unreadable or stale."""
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
