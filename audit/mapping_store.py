"""The server-local private files of the pseudonym scheme: the mapping store and the secret.

The mapping pseudonym → (kind, raw id) lives in its own SQLite file, never in the tables an
export reads and never reachable over HTTP; only `lexgate audit trace` reads it back. Both files
are created by os.open with mode 0600 and then fchmod-ed to exactly 0600, so no umask can leave
them wider (or too narrow to use); SQLite gives its journal the mode of the database file. An
existing file that group or others may read is refused rather than used.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from audit.errors import (
    InsecureFileError,
    MappingStoreError,
    MappingStoreMissingError,
    PseudonymConflictError,
)
from audit.models import MappingEntry
from audit.private_files import create_private, use_wal, write_private_once

SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 10.0
SECRET_BYTES = 32
_SCHEMA = """
CREATE TABLE IF NOT EXISTS pseudonym_map (
    pseudonym TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    raw_id TEXT NOT NULL,
    first_seen TEXT NOT NULL  -- ISO 8601, UTC
) WITHOUT ROWID
"""


def check_private(path: Path) -> None:
    """InsecureFileError when group or others have any permission on path."""
    mode = os.stat(path).st_mode & 0o777
    if mode & 0o077:
        raise InsecureFileError(
            f"{path} has mode {mode:04o}: it holds pseudonym secrets, make it 0600 "
            f"(chmod 600 {path})"
        )


def secret_path_for(store_path: Path) -> Path:
    """Where the generated audit secret lives: beside the mapping store, suffix .secret."""
    return Path(store_path).with_suffix(".secret")


def load_or_create_secret(path: Path) -> bytes:
    """The secret kept in path, generated (256 random bits, hex) with mode 0600 if missing.

    Two processes starting together agree: each writes a complete temporary file and links it
    into place; the link fails for all but the first, and every process reads the winner's.
    """
    path = Path(path)
    try:
        write_private_once(path, (secrets.token_hex(SECRET_BYTES) + "\n").encode("ascii"))
    except OSError as error:
        raise MappingStoreError(f"could not create the audit secret {path}: {error}") from error
    check_private(path)
    secret = path.read_text(encoding="utf-8").strip()
    if len(secret) < 16:
        raise MappingStoreError(f"the audit secret in {path} is empty or too short")
    return secret.encode("utf-8")


def _not_yet_recorded(
    connection: sqlite3.Connection, entries: list[tuple[str, str, str]]
) -> list[tuple[str, str, str]]:
    """The entries whose pseudonym is not recorded; PseudonymConflictError for a contradiction."""
    missing = []
    for pseudonym, kind, raw_id in entries:
        recorded = connection.execute(
            "SELECT kind, raw_id FROM pseudonym_map WHERE pseudonym = ?", (pseudonym,)
        ).fetchone()
        if recorded is None:
            missing.append((pseudonym, kind, raw_id))
        elif tuple(recorded) != (kind, raw_id):
            raise PseudonymConflictError(
                f"{pseudonym} is already recorded for another {recorded[0]} id"
            )
    return missing


class MappingStore:
    """pseudonym → (kind, raw id, first seen), in a private SQLite file of its own.

    create=True (recording) makes the file if missing; create=False (tracing) raises
    MappingStoreMissingError instead. Each call opens its own connection, so a store may be
    shared by threads, and writers in other processes wait for each other (busy timeout).
    """

    def __init__(self, path: Path | str, *, create: bool = True) -> None:
        self.path = Path(path)
        if create:
            descriptor = create_private(self.path)
            if descriptor is not None:
                os.close(descriptor)
        elif not self.path.exists():
            raise MappingStoreMissingError(
                f"no pseudonym mapping store at {self.path}: pseudonyms can only be traced on "
                "the server that recorded them (setting mapping_store_path)"
            )
        check_private(self.path)
        with self._connection() as connection:
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version == 0 and create:
                # Several workers may open a new store at once: the schema is made under the
                # write lock, the version read again there (issue 8: a 503 at start-up).
                connection.execute("BEGIN IMMEDIATE")
                if connection.execute("PRAGMA user_version").fetchone()[0] == 0:
                    connection.execute(_SCHEMA)
                    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                connection.execute("COMMIT")
                # WAL: one fsync per commit, readers never wait for the writer. Its -wal and
                # -shm files, like a journal, get the database file's mode.
                use_wal(connection, BUSY_TIMEOUT_S)
            elif version != SCHEMA_VERSION:
                raise MappingStoreError(
                    f"{self.path} is not a LexGate mapping store (schema version {version})"
                )

    def __repr__(self) -> str:
        return f"MappingStore({str(self.path)!r})"

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        # mode=rw: SQLite never creates the file itself, so it never does so with a wide mode.
        uri = f"file:{quote(str(self.path.resolve()))}?mode=rw"
        try:
            with closing(
                sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            ) as connection:
                connection.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
                yield connection
        except sqlite3.DatabaseError as error:
            raise MappingStoreError(f"mapping store {self.path}: {error}") from error

    def record(
        self, pseudonym: str, kind: str, raw_id: str, seen_at: datetime | None = None
    ) -> None:
        """Remember what pseudonym stands for; recording the same triple again does nothing.

        PseudonymConflictError if pseudonym is already recorded for another (kind, raw id).
        """
        self.record_many([(pseudonym, kind, raw_id)], seen_at)

    def record_many(
        self, entries: Iterable[tuple[str, str, str]], seen_at: datetime | None = None
    ) -> None:
        """record() for several (pseudonym, kind, raw id) at once, all or none.

        Pseudonyms already recorded cost one read; the missing ones are written in a single
        transaction (one commit for an evaluation's subject and session).
        """
        wanted = list(entries)
        first_seen = (seen_at or datetime.now(UTC)).astimezone(UTC).isoformat()
        with self._connection() as connection:
            missing = _not_yet_recorded(connection, wanted)
            if not missing:
                return
            connection.execute("BEGIN IMMEDIATE")
            try:
                connection.executemany(
                    "INSERT INTO pseudonym_map (pseudonym, kind, raw_id, first_seen) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (pseudonym) DO NOTHING",
                    [(*entry, first_seen) for entry in missing],
                )
                # Another writer may have come first, or the batch contradict itself.
                _not_yet_recorded(connection, missing)
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

    def resolve(self, pseudonym: str) -> MappingEntry | None:
        """What pseudonym stands for, or None when this store never recorded it."""
        with self._connection() as connection:
            row = connection.execute(
                "SELECT kind, raw_id, first_seen FROM pseudonym_map WHERE pseudonym = ?",
                (pseudonym,),
            ).fetchone()
        if row is None:
            return None
        kind, raw_id, first_seen = row
        return MappingEntry(pseudonym, kind, raw_id, datetime.fromisoformat(first_seen))
