"""Where the pseudonym scheme keeps pseudonym → (kind, raw id), and its secret.

On one machine (SQLite), the mapping lives in its own private SQLite file (`MappingStore`),
never in the tables an export reads and never reachable over HTTP; only `lexgate audit trace`
reads it back. The file and the secret are created by os.open with mode 0600 and then
fchmod-ed to exactly 0600, so no umask can leave them wider (or too narrow to use); SQLite
gives its journal the mode of the database file. An existing file that group or others may
read is refused rather than used.

With several hosts on PostgreSQL, the mapping lives in the database (`DatabaseMappingStore`,
table audit_pseudonym_map), each raw id sealed with AES-256-GCM (`audit.sealing`), and is
written in the audit record's own transaction. Neither is ever read over HTTP.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from audit.errors import (
    InsecureFileError,
    MappingStoreError,
    MappingStoreMissingError,
    PseudonymConflictError,
    SealError,
)
from audit.models import MappingEntry
from audit.private_files import (
    PrivateDatabase,
    create_private,
    insert_rows,
    use_wal,
    write_private_once,
)
from audit.sealing import KeyRing, Sealed, SealedColumns
from audit.tables import PSEUDONYM_TABLE, insert_all, pipelined
from legaldb.engine import describe_error

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


Entry = tuple[str, str, str]  # (pseudonym, kind, raw id)
Writes = Callable[[Connection], None]  # more writes of the audit record's transaction


def _conflicts(recorded: Iterable[tuple[str, str, str]], wanted: Iterable[Entry]) -> set[str]:
    """The pseudonyms wanted that are recorded (pseudonym, kind, raw id) for another id;
    PseudonymConflictError for the first such; the set of those recorded alike."""
    known = {pseudonym: (kind, raw_id) for pseudonym, kind, raw_id in recorded}
    for pseudonym, kind, raw_id in wanted:
        found = known.get(pseudonym)
        if found is not None and found != (kind, raw_id):
            raise PseudonymConflictError(
                f"{pseudonym} is already recorded for another {found[0]} id"
            )
    return set(known)


def _consistent(entries: Iterable[Entry]) -> list[Entry]:
    """The entries without repeats; PseudonymConflictError when the batch gives one pseudonym
    two ids."""
    distinct: dict[str, Entry] = {}
    for entry in entries:
        other = distinct.setdefault(entry[0], entry)
        if other != entry:
            raise PseudonymConflictError(f"{entry[0]} is given for two {entry[1]} ids at once")
    return list(distinct.values())


def _first_seen(seen_at: datetime | None) -> datetime:
    return (seen_at or datetime.now(UTC)).astimezone(UTC)


def _not_yet_recorded(connection: sqlite3.Connection, entries: Sequence[Entry]) -> list[Entry]:
    """The entries whose pseudonym is not recorded; PseudonymConflictError for a contradiction."""
    marks = ", ".join("?" for _ in entries)
    recorded = connection.execute(
        f"SELECT pseudonym, kind, raw_id FROM pseudonym_map WHERE pseudonym IN ({marks})",
        [pseudonym for pseudonym, _, _ in entries],
    ).fetchall()
    known = _conflicts(recorded, entries)
    return [entry for entry in entries if entry[0] not in known]


class _Store(ABC):
    """What both stores share: recording goes through one consistency check (a batch giving
    one pseudonym two ids is refused before anything is written)."""

    def record(
        self, pseudonym: str, kind: str, raw_id: str, seen_at: datetime | None = None
    ) -> None:
        """Remember what pseudonym stands for; recording the same triple again does nothing.

        PseudonymConflictError if pseudonym is already recorded for another (kind, raw id).
        """
        self.record_many([(pseudonym, kind, raw_id)], seen_at)

    def record_many(
        self,
        entries: Iterable[Entry],
        seen_at: datetime | None = None,
        *,
        connection: Connection | None = None,
        along: Writes | None = None,
    ) -> None:
        """record() for several (pseudonym, kind, raw id) at once, all or none; a store in the
        audit record's database joins the transaction of `connection`, a file commits on its
        own. `along(connection)`, given with connection, writes the rest of that transaction
        after the mapping: statements whose results it does not read, which a store in the
        same database sends with its own in one round trip (`audit.tables.pipelined`)."""
        wanted = _consistent(entries)
        if wanted:
            self._record(wanted, _first_seen(seen_at), connection, along)
        elif along is not None and connection is not None:
            along(connection)

    @abstractmethod
    def _record(
        self,
        wanted: list[Entry],
        first_seen: datetime,
        connection: Connection | None,
        along: Writes | None,
    ) -> None:
        """Write the entries (distinct pseudonyms, none empty) not yet recorded, and along."""


class MappingStore(_Store):
    """pseudonym → (kind, raw id, first seen), in a private SQLite file of its own.

    create=True (recording) makes the file if missing; create=False (tracing) raises
    MappingStoreMissingError instead. Each thread keeps its own connection to the file, so a
    store may be shared by threads, and writers in other processes wait for each other (busy
    timeout).
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
        self._database = PrivateDatabase(
            self.path,
            BUSY_TIMEOUT_S,
            lambda error: MappingStoreError(f"mapping store {self.path}: {error}"),
        )
        with self._database.connection() as connection:
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version == 0 and create:
                # Several workers may open a new store at once: the schema is made under the
                # write lock, the version read again there (a 503 at start-up otherwise).
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

    def describe(self) -> str:
        """The file, for messages."""
        return f"the mapping store {self.path}"

    def _record(
        self,
        wanted: list[Entry],
        first_seen: datetime,
        connection: Connection | None,
        along: Writes | None,
    ) -> None:
        """Committed to the file at once (connection, an audit transaction elsewhere, is not
        joined; along is run on it after). Pseudonyms already recorded cost one read; the
        missing ones are written in a single transaction (one commit for an evaluation's
        subject and session)."""
        self._write(wanted, first_seen)
        if along is not None and connection is not None:
            along(connection)

    def _write(self, wanted: list[Entry], first_seen: datetime) -> None:
        seen = first_seen.isoformat()
        with self._database.connection() as reader:
            if not _not_yet_recorded(reader, wanted):
                return
        with self._database.write() as writer:
            missing = _not_yet_recorded(writer, wanted)  # another writer may have come first
            insert_rows(
                writer,
                "INSERT INTO pseudonym_map (pseudonym, kind, raw_id, first_seen)",
                [(*entry, seen) for entry in missing],
            )

    def resolve(self, pseudonym: str) -> MappingEntry | None:
        """What pseudonym stands for, or None when this store never recorded it."""
        with self._database.connection() as connection:
            row = connection.execute(
                "SELECT kind, raw_id, first_seen FROM pseudonym_map WHERE pseudonym = ?",
                (pseudonym,),
            ).fetchone()
        if row is None:
            return None
        kind, raw_id, first_seen = row
        return MappingEntry(pseudonym, kind, raw_id, datetime.fromisoformat(first_seen))


SEALED_IDS = SealedColumns(
    PSEUDONYM_TABLE,
    PSEUDONYM_TABLE.c.key_id,
    PSEUDONYM_TABLE.c.sealed_id,
    PSEUDONYM_TABLE.c.pseudonym,
)
"""The sealed raw ids of the mapping table, for `audit.sealing.reseal` (key rotation)."""


class DatabaseMappingStore(_Store):
    """pseudonym → (kind, raw id, first seen) in the database's audit_pseudonym_map table,
    each raw id sealed under the key ring and bound to its pseudonym. Written in the audit
    record's transaction when given it, so a case and its mapping commit together."""

    def __init__(self, engine: Engine, keys: KeyRing) -> None:
        self.engine = engine
        self.keys = keys

    def __repr__(self) -> str:
        return f"DatabaseMappingStore({self.engine.url.render_as_string()!r}, {self.keys!r})"

    def describe(self) -> str:
        """The table, for messages."""
        return "the database's pseudonym mapping (audit_pseudonym_map)"

    def _open(self, pseudonym: str, kind: str, key_id: str, data: bytes) -> Entry:
        raw_id = self.keys.open(Sealed(key_id, data), pseudonym.encode("utf-8"))
        return pseudonym, kind, raw_id.decode("utf-8")

    def _recorded(self, connection: Connection, pseudonyms: list[str]) -> list[Entry]:
        table = PSEUDONYM_TABLE
        rows = connection.execute(
            sa.select(table.c.pseudonym, table.c.kind, table.c.key_id, table.c.sealed_id).where(
                table.c.pseudonym.in_(pseudonyms)
            )
        ).all()
        return [self._open(*row) for row in rows]

    def _write(
        self,
        connection: Connection,
        wanted: list[Entry],
        first_seen: datetime,
        along: Writes | None,
    ) -> None:
        """Every entry inserted unless its pseudonym is recorded (by an earlier answer, or by
        another host meanwhile: the insert waits for that host's transaction), along's writes
        sent with it, then the entries read back: each must stand for the id given
        (PseudonymConflictError otherwise; the caller's transaction, rolled back, keeps none of
        it). Three statements, two round trips, whatever along writes."""
        rows = []
        for pseudonym, kind, raw_id in wanted:
            sealed = self.keys.seal(raw_id.encode("utf-8"), pseudonym.encode("utf-8"))
            rows.append(
                {
                    "pseudonym": pseudonym,
                    "kind": kind,
                    "key_id": sealed.key_id,
                    "sealed_id": sealed.data,
                    "first_seen": first_seen,
                }
            )
        with pipelined(connection):
            insert_all(connection, PSEUDONYM_TABLE, rows, key="pseudonym")
            if along is not None:
                along(connection)
        _conflicts(self._recorded(connection, [entry[0] for entry in wanted]), wanted)

    def _record(
        self,
        wanted: list[Entry],
        first_seen: datetime,
        connection: Connection | None,
        along: Writes | None,
    ) -> None:
        """In connection's transaction when given (else in one of its own)."""
        if connection is not None:
            self._write(connection, wanted, first_seen, along)
            return
        try:
            with self.engine.begin() as own:
                self._write(own, wanted, first_seen, along)
        except sa.exc.SQLAlchemyError as error:
            raise MappingStoreError(f"{self.describe()}: {describe_error(error)}") from error

    def resolve(self, pseudonym: str) -> MappingEntry | None:
        """What pseudonym stands for, or None when it was never recorded here."""
        table = PSEUDONYM_TABLE
        try:
            with self.engine.connect() as connection:
                row = connection.execute(
                    sa.select(
                        table.c.kind, table.c.key_id, table.c.sealed_id, table.c.first_seen
                    ).where(table.c.pseudonym == pseudonym)
                ).one_or_none()
        except sa.exc.SQLAlchemyError as error:
            raise MappingStoreError(f"{self.describe()}: {describe_error(error)}") from error
        if row is None:
            return None
        try:
            _, kind, raw_id = self._open(pseudonym, row.kind, row.key_id, row.sealed_id)
        except SealError as error:
            raise MappingStoreError(str(error)) from error
        return MappingEntry(pseudonym, kind, raw_id, row.first_seen)


PseudonymStore = MappingStore | DatabaseMappingStore
"""Where pseudonym → (kind, raw id) is kept: a private file (one machine), or the shared
database (several hosts). `record_many(entries, seen_at, connection=…)`: all or none,
PseudonymConflictError when a pseudonym is recorded for another id; a store in the audit
record's database joins its transaction, a file commits on its own first."""

__all__ = [
    "SEALED_IDS",
    "DatabaseMappingStore",
    "MappingStore",
    "PseudonymStore",
    "check_private",
    "load_or_create_secret",
    "secret_path_for",
]
