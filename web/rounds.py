"""Open rounds of POST /api/v1/gate, kept between requests in a private SQLite file.

A round continues over several requests (the caller regenerates and sends the next answer
under the same session id). Its `RoundRecord` JSON is kept here, keyed by the session's
pseudonym, until the round ends; then the row is deleted. The record holds the raw answers,
because the audit recorder matches the answers already recorded by their sha256 before it adds
the next attempt; so the file is private (mode 0600, like the mapping store beside it), local
to the server, and keeps a round only while it is open (at most ROUND_TTL after its last
answer). The audit tables themselves hold only masked text and could not rebuild the round.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

from audit.private_files import create_private, use_wal
from gate.models import RoundRecord
from web.errors import AuditUnavailable

BUSY_TIMEOUT_S = 30.0  # as the main SQLite database's: writers queue behind the lock
ROUND_TTL = timedelta(hours=24)
SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS open_round (
    session TEXT PRIMARY KEY,  -- the session's pseudonym
    subject TEXT,              -- the subject's pseudonym, if any
    case_id TEXT NOT NULL,     -- the audit case the round is recorded as
    record TEXT NOT NULL,      -- gate.RoundRecord JSON (raw answers)
    updated_at TEXT NOT NULL   -- ISO 8601, UTC
) WITHOUT ROWID
"""


@dataclass(frozen=True, slots=True)
class OpenRound:
    """A round waiting for its next answer, and the audit case it is recorded as."""

    session: str
    subject: str | None
    case_id: str
    record: RoundRecord
    updated_at: datetime


class RoundTransaction:
    """Reads and writes inside one write transaction of the round store."""

    def __init__(self, connection: sqlite3.Connection, now: datetime) -> None:
        self._connection = connection
        self._now = now

    def get(self, session: str) -> OpenRound | None:
        """The open round of a session pseudonym (None when none, or expired)."""
        return _read(self._connection, session, self._now)

    def put(self, session: str, subject: str | None, case_id: str, record: RoundRecord) -> None:
        """Keep (or replace) the open round of a session."""
        self._connection.execute(
            "INSERT INTO open_round (session, subject, case_id, record, updated_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (session) DO UPDATE SET subject = excluded.subject, "
            "case_id = excluded.case_id, record = excluded.record, updated_at = excluded.updated_at",
            (session, subject, case_id, record.model_dump_json(), self._now.isoformat()),
        )

    def delete(self, session: str) -> None:
        """Forget a session's round (it ended)."""
        self._connection.execute("DELETE FROM open_round WHERE session = ?", (session,))


def _read(connection: sqlite3.Connection, session: str, now: datetime) -> OpenRound | None:
    row = connection.execute(
        "SELECT subject, case_id, record, updated_at FROM open_round WHERE session = ?",
        (session,),
    ).fetchone()
    if row is None:
        return None
    subject, case_id, record, updated_text = row
    updated_at = datetime.fromisoformat(updated_text)
    if now - updated_at > ROUND_TTL:
        return None
    return OpenRound(session, subject, case_id, RoundRecord.model_validate_json(record), updated_at)


class RoundStore:
    """session pseudonym → the open round, in a private SQLite file of its own.

    Each call opens its own connection: threads and worker processes on the server share the
    file, and a write transaction (BEGIN IMMEDIATE) serialises two requests of one session.
    Any SQLite failure is AuditUnavailable (503): a gate request cannot be recorded without it.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._write_lock = threading.Lock()
        descriptor = create_private(self.path)
        if descriptor is not None:
            os.close(descriptor)
        mode = os.stat(self.path).st_mode & 0o777
        if mode & 0o077:
            raise AuditUnavailable(
                f"the round store {self.path} has mode {mode:04o}; make it 0600", field=None
            )
        with self._connection() as connection:
            # Two workers may open a new store at once: the schema is made under the write
            # lock (BEGIN IMMEDIATE waits for the other), and switching to WAL, which does not
            # wait, is retried until the other process has done it (issue 8: a 503 at start).
            connection.execute("BEGIN IMMEDIATE")
            if connection.execute("PRAGMA user_version").fetchone()[0] == 0:
                connection.execute(_SCHEMA)
                connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            connection.execute("COMMIT")
            use_wal(connection, BUSY_TIMEOUT_S)

    def __repr__(self) -> str:
        return f"RoundStore({str(self.path)!r})"

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        uri = f"file:{quote(str(self.path.resolve()))}?mode=rw"
        try:
            with closing(
                sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            ) as connection:
                yield connection
        except sqlite3.Error as error:
            raise AuditUnavailable(f"the round store is unavailable: {error}") from error

    def get(self, session: str, now: datetime | None = None) -> OpenRound | None:
        """The open round of a session pseudonym, read without a lock."""
        with self._connection() as connection:
            return _read(connection, session, now or datetime.now(UTC))

    @contextmanager
    def transaction(self, now: datetime | None = None) -> Iterator[RoundTransaction]:
        """One write transaction: committed when the block ends, rolled back if it raises.

        Rounds idle for longer than ROUND_TTL are dropped at the start of it.
        """
        moment = now or datetime.now(UTC)
        # One thread per process waits for SQLite's write lock: SQLite's busy wait is not
        # fair, and with 64 waiting threads some waited past the timeout (issue 8: rare 503s).
        with self._write_lock, self._connection() as connection:
            connection.execute("BEGIN IMMEDIATE")
            try:
                connection.execute(
                    "DELETE FROM open_round WHERE updated_at < ?",
                    ((moment - ROUND_TTL).isoformat(),),
                )
                yield RoundTransaction(connection, moment)
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
