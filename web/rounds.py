"""Open rounds of POST /api/v1/gate, kept between requests until their last answer.

A round continues over several requests (the caller regenerates and sends the next answer
under the same session id). Its `RoundRecord` JSON is kept, keyed by the session's pseudonym,
until the round ends; then it is deleted. The record holds the raw answers, because the audit
recorder matches the answers already recorded by their sha256 before it adds the next attempt;
the audit tables hold only masked text and could not rebuild the round. A round is kept at
most ROUND_TTL after its last answer.

Two stores, one protocol:
- `FileRoundStore`, one machine (SQLite, the default): a private SQLite file (mode 0600, like
  the mapping store beside it), shared by the machine's workers.
- `DatabaseRoundStore`, several hosts (PostgreSQL): the table web_open_round, each round sealed
  with AES-256-GCM (`audit.sealing`) and bound to its session, so that any host continues any
  round.

Answers are serialised per session: `settle` locks the session's row (SELECT … FOR UPDATE) in
the one transaction that records the answer and keeps its round (the database store), so
answers of other sessions never wait. The file store writes a kept round's next answer inside
its own write transaction (SQLite has a single writer anyway; the transaction holds only the
audit write), and records a new round's first answer with nothing locked.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Generator, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from audit.errors import SealError
from audit.private_files import (
    ROWS_PER_INSERT,
    PrivateDatabase,
    create_private,
    insert_rows,
    use_wal,
)
from audit.sealing import KeyRing, Sealed, SealedColumns
from audit.tables import insert_all
from gate.models import RoundRecord
from web.errors import AuditUnavailable, RoundConflict
from web.tables import OPEN_ROUND_TABLE

BUSY_TIMEOUT_S = 30.0  # as the main SQLite database's: writers queue behind the lock
ROUND_TTL = timedelta(hours=24)
EXPIRY_EVERY_S = 60.0  # how often a process drops the rounds idle for longer than ROUND_TTL
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
HELD_SWITCH_S = 0.0002
"""The interpreter's switch interval while this process writes gated answers: while it holds
the machine's writers' lock (SQLite), or a settling transaction is open (PostgreSQL)."""
MOVED_ON = "another answer of this session was gated meanwhile; send it again"


@dataclass(frozen=True, slots=True)
class OpenRound:
    """A round waiting for its next answer, and the audit case it is recorded as."""

    session: str
    subject: str | None
    case_id: str
    record: RoundRecord
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class Version:
    """Which kept round an answer continues: its audit case and its number of attempts."""

    case_id: str
    attempts: int


@dataclass(slots=True)
class Settlement:
    """What one answer does to its session's kept round, decided inside `settle`: `bind` is
    where the audit record is written (the store's transaction, or the engine)."""

    bind: Engine | Connection
    kept: tuple[str | None, str, RoundRecord] | None = field(default=None)
    forgotten: bool = False
    recorded: bool = False  # set by the store once the audit record is committed

    @property
    def changes_round(self) -> bool:
        """Whether the answer keeps or drops its session's round."""
        return self.kept is not None or self.forgotten

    def keep(self, subject: str | None, case_id: str, record: RoundRecord) -> None:
        """Keep record (still open) as the session's round, recorded as case_id."""
        self.kept, self.forgotten = (subject, case_id, record), False

    def forget(self) -> None:
        """Drop the session's kept round (it ended, or a new round replaced it)."""
        self.kept, self.forgotten = None, True


class RoundStore(Protocol):
    """session pseudonym → its open round."""

    def get(self, session: str, now: datetime | None = None) -> OpenRound | None:
        """The open round of a session pseudonym (None when none, or expired), unlocked."""
        ...

    def settle(
        self, engine: Engine, answers: Sequence[tuple[str, Version | None]]
    ) -> AbstractContextManager[list[Settlement]]:
        """Record answers and keep their rounds: the block writes the audit records to the
        settlements' bind (one transaction) and says, for each answer, keep or forget; an
        answer is (its session, the kept round it continues: None for a new round).
        RoundConflict when a kept round moved on meanwhile (another answer of its session
        was gated); nothing is recorded then."""
        ...

    def forget(self, session: str) -> None:
        """Drop the session's round at once (its audit case no longer matches it)."""
        ...


def _expired_before(moment: datetime) -> datetime:
    return moment - ROUND_TTL


class _Expiry:
    """Drop rounds idle for longer than ROUND_TTL at most every EXPIRY_EVERY_S per process."""

    def __init__(self) -> None:
        self._next = 0.0

    def due(self) -> bool:
        now = time.monotonic()
        if now < self._next:
            return False
        self._next = now + EXPIRY_EVERY_S
        return True


# --- One machine: a private SQLite file ---------------------------------------------------


class _WritersLock:
    """The machine's gate writers one at a time: a thread lock and flock(2) on a private file
    of its own. A process waiting for it wakes as soon as it is released, where SQLite's busy
    handler sleeps up to 100 ms between tries at each of the three files a gate writes."""

    def __init__(self, path: Path) -> None:
        descriptor = create_private(path)
        if descriptor is None:
            descriptor = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
        self._descriptor = descriptor
        self._threads = threading.Lock()

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._threads:
            fcntl.flock(self._descriptor, fcntl.LOCK_EX)
            try:
                with _short_switches():
                    yield
            finally:
                fcntl.flock(self._descriptor, fcntl.LOCK_UN)


class _SwitchInterval:
    """The process's switch interval HELD_SWITCH_S while any of its threads holds a writers'
    lock or a settling transaction, the one it had before once none does. A thread waiting for
    the interpreter's lock (the writer, after each SQLite call or PostgreSQL round trip) asks
    for it after that long instead of the 5 ms default, so that the busy event loop does not
    stretch the other workers' wait (SQLite) or the transaction (PostgreSQL: about 20 round
    trips a batch, each a switch interval long when the loop is busy)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders = 0
        self._before = sys.getswitchinterval()

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._holders == 0:
                self._before = sys.getswitchinterval()
                sys.setswitchinterval(HELD_SWITCH_S)
            self._holders += 1
        try:
            yield
        finally:
            with self._lock:
                self._holders -= 1
                if self._holders == 0:
                    sys.setswitchinterval(self._before)


_short_switches = _SwitchInterval()


class FileRoundStore:
    """session pseudonym → the open round, in a private SQLite file of its own.

    Each thread keeps a connection to the file (`audit.private_files.PrivateDatabase`): the
    machine's threads and worker processes share it. Any SQLite failure is AuditUnavailable
    (503): a gate request cannot be recorded without it.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        descriptor = create_private(self.path)
        if descriptor is not None:
            os.close(descriptor)
        mode = os.stat(self.path).st_mode & 0o777
        if mode & 0o077:
            raise AuditUnavailable(
                f"the round store {self.path} has mode {mode:04o}; make it 0600", field=None
            )
        self._database = PrivateDatabase(
            self.path,
            BUSY_TIMEOUT_S,
            lambda error: AuditUnavailable(f"the round store is unavailable: {error}"),
        )
        self._expiry = _Expiry()
        self._writers = _WritersLock(self.path.with_name(f"{self.path.name}-writers.lock"))
        with self._database.write() as connection:
            # Two workers may open a new store at once: the schema is made under the write
            # lock (BEGIN IMMEDIATE waits for the other), and switching to WAL, which does not
            # wait, is retried until the other process has done it.
            if connection.execute("PRAGMA user_version").fetchone()[0] == 0:
                connection.execute(_SCHEMA)
                connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        with self._database.connection() as connection:
            use_wal(connection, BUSY_TIMEOUT_S)

    def __repr__(self) -> str:
        return f"FileRoundStore({str(self.path)!r})"

    def get(self, session: str, now: datetime | None = None) -> OpenRound | None:
        """The open round of a session pseudonym, read without a lock."""
        moment = now or datetime.now(UTC)
        with self._database.connection() as connection:
            row = connection.execute(
                "SELECT subject, case_id, record, updated_at FROM open_round WHERE session = ?",
                (session,),
            ).fetchone()
        if row is None:
            return None
        subject, case_id, record, updated_text = row
        updated_at = datetime.fromisoformat(updated_text)
        if updated_at < _expired_before(moment):
            return None
        return OpenRound(
            session, subject, case_id, RoundRecord.model_validate_json(record), updated_at
        )

    @contextmanager
    def settle(
        self, engine: Engine, answers: Sequence[tuple[str, Version | None]]
    ) -> Iterator[list[Settlement]]:
        """The audit records are written by the block in one transaction. New rounds' are
        written first, with nothing locked, and their rounds kept after in one short write.
        Answers to kept rounds are written inside the store's write transaction (SQLite has
        one writer anyway), after checking that each round is still the `expected` one: if
        the store cannot be written, nothing of them is recorded. The machine's writers take
        turns (`_WritersLock`): SQLite has one writer at a time anyway."""
        with self._writers.held():
            yield from self._settle(engine, answers)

    def _settle(
        self, engine: Engine, answers: Sequence[tuple[str, Version | None]]
    ) -> Generator[list[Settlement], None, None]:
        if all(expected is None for _, expected in answers):
            settlements = yield from self._record(engine, len(answers))
            if any(settlement.changes_round for settlement in settlements):
                with self._database.write() as connection:
                    self._apply(connection, answers, settlements)
            return
        with self._database.write() as connection:
            for session, expected in answers:
                if expected is None:
                    continue
                row = connection.execute(
                    "SELECT case_id, json_array_length(record, '$.attempts') FROM open_round "
                    "WHERE session = ?",
                    (session,),
                ).fetchone()
                if row is None or Version(*row) != expected:
                    raise RoundConflict(MOVED_ON, field="attempt")
            settlements = yield from self._record(engine, len(answers))
            self._apply(connection, answers, settlements)

    @staticmethod
    def _record(engine: Engine, count: int) -> Generator[list[Settlement], None, list[Settlement]]:
        """The block's audit transaction, on the main database; the settlements, recorded."""
        try:
            with engine.begin() as connection:
                settlements = [Settlement(bind=connection) for _ in range(count)]
                yield settlements
        except sa.exc.SQLAlchemyError as error:
            raise AuditUnavailable(f"the audit record was not written: {error}") from error
        for settlement in settlements:
            settlement.recorded = True
        return settlements

    def _apply(
        self,
        connection: sqlite3.Connection,
        answers: Sequence[tuple[str, Version | None]],
        settlements: Sequence[Settlement],
    ) -> None:
        """Keep or drop the answers' sessions' rounds (in the caller's write transaction): one
        statement for the rounds dropped, one for those kept (the answers' sessions differ)."""
        moment = datetime.now(UTC)
        if self._expiry.due():
            connection.execute(
                "DELETE FROM open_round WHERE updated_at < ?",
                (_expired_before(moment).isoformat(),),
            )
        forgotten = [
            session
            for (session, _), settlement in zip(answers, settlements, strict=True)
            if settlement.kept is None and settlement.forgotten
        ]
        for start in range(0, len(forgotten), ROWS_PER_INSERT):
            chunk = forgotten[start : start + ROWS_PER_INSERT]
            connection.execute(
                f"DELETE FROM open_round WHERE session IN ({', '.join('?' * len(chunk))})", chunk
            )
        updated = moment.isoformat()
        insert_rows(
            connection,
            "INSERT INTO open_round (session, subject, case_id, record, updated_at)",
            [
                (session, *kept[:2], kept[2].model_dump_json(), updated)
                for (session, _), settlement in zip(answers, settlements, strict=True)
                if (kept := settlement.kept) is not None
            ],
            "ON CONFLICT (session) DO UPDATE SET subject = excluded.subject, "
            "case_id = excluded.case_id, record = excluded.record, "
            "updated_at = excluded.updated_at",
        )

    def forget(self, session: str) -> None:
        """Drop the session's round."""
        with self._database.write() as connection:
            connection.execute("DELETE FROM open_round WHERE session = ?", (session,))


# --- Several hosts: the database, sealed ----------------------------------------------------


SEALED_ROUNDS = SealedColumns(
    OPEN_ROUND_TABLE,
    OPEN_ROUND_TABLE.c.key_id,
    OPEN_ROUND_TABLE.c.sealed_record,
    OPEN_ROUND_TABLE.c.session,
)
"""The sealed rounds, for `audit.sealing.reseal` (key rotation)."""


class DatabaseRoundStore:
    """session pseudonym → the open round, in the database's web_open_round table, sealed.

    The answer's audit record and its round are written in one transaction, with the
    session's row locked (SELECT … FOR UPDATE) when the answer continues a kept round: answers
    of other sessions never wait for it. A database failure is AuditUnavailable (503).
    """

    def __init__(self, engine: Engine, keys: KeyRing) -> None:
        self.engine = engine
        self.keys = keys
        self._expiry = _Expiry()

    def __repr__(self) -> str:
        return f"DatabaseRoundStore({self.engine.url.render_as_string()!r}, {self.keys!r})"

    def _open(self, session: str, key_id: str, data: bytes) -> RoundRecord:
        try:
            plain = self.keys.open(Sealed(key_id, data), session.encode("utf-8"))
        except SealError as error:
            raise AuditUnavailable(f"the session's open round cannot be read: {error}") from error
        return RoundRecord.model_validate_json(plain)

    def get(self, session: str, now: datetime | None = None) -> OpenRound | None:
        """The open round of a session pseudonym, read without a lock."""
        moment = now or datetime.now(UTC)
        table = OPEN_ROUND_TABLE
        try:
            with self.engine.connect() as connection:
                row = connection.execute(
                    sa.select(
                        table.c.subject,
                        table.c.case_id,
                        table.c.key_id,
                        table.c.sealed_record,
                        table.c.updated_at,
                    ).where(table.c.session == session)
                ).one_or_none()
        except sa.exc.SQLAlchemyError as error:
            raise AuditUnavailable(f"the open rounds are unavailable: {error}") from error
        if row is None or row.updated_at < _expired_before(moment):
            return None
        record = self._open(session, row.key_id, row.sealed_record)
        return OpenRound(session, row.subject, row.case_id, record, row.updated_at)

    @contextmanager
    def settle(
        self, engine: Engine, answers: Sequence[tuple[str, Version | None]]
    ) -> Iterator[list[Settlement]]:
        """One transaction: the sessions' rows locked (those continued, in one order), the
        audit records written by the block to the settlements' connection, the rounds kept
        or dropped."""
        table = OPEN_ROUND_TABLE
        try:
            with _short_switches(), engine.begin() as connection:
                for session, expected in sorted(
                    (answer for answer in answers if answer[1] is not None), key=lambda a: a[0]
                ):
                    locked = connection.execute(
                        sa.select(table.c.case_id, table.c.attempts)
                        .where(table.c.session == session)
                        .with_for_update()
                    ).one_or_none()
                    if locked is None or Version(*locked) != expected:
                        raise RoundConflict(MOVED_ON, field="attempt")
                settlements = [Settlement(bind=connection) for _ in answers]
                yield settlements
                moment = datetime.now(UTC)
                if self._expiry.due():
                    connection.execute(
                        table.delete().where(table.c.updated_at < _expired_before(moment))
                    )
                kept = [
                    self._row(session, moment, *settlement.kept)
                    for (session, _), settlement in zip(answers, settlements, strict=True)
                    if settlement.kept is not None
                ]
                # one statement for all, each replacing its session's earlier round
                insert_all(connection, table, kept, key="session", update=True)
                forgotten = [
                    session
                    for (session, _), settlement in zip(answers, settlements, strict=True)
                    if settlement.forgotten
                ]
                if forgotten:
                    connection.execute(table.delete().where(table.c.session.in_(forgotten)))
        except sa.exc.SQLAlchemyError as error:
            raise AuditUnavailable(f"the open rounds are unavailable: {error}") from error

    def _row(
        self,
        session: str,
        moment: datetime,
        subject: str | None,
        case_id: str,
        record: RoundRecord,
    ) -> dict[str, object]:
        """The table row keeping record (sealed, bound to its session)."""
        sealed = self.keys.seal(record.model_dump_json().encode("utf-8"), session.encode("utf-8"))
        return {
            "session": session,
            "subject": subject,
            "case_id": case_id,
            "attempts": len(record.attempts),
            "key_id": sealed.key_id,
            "sealed_record": sealed.data,
            "updated_at": moment,
        }

    def forget(self, session: str) -> None:
        """Drop the session's round."""
        try:
            with self.engine.begin() as connection:
                connection.execute(
                    OPEN_ROUND_TABLE.delete().where(OPEN_ROUND_TABLE.c.session == session)
                )
        except sa.exc.SQLAlchemyError as error:
            raise AuditUnavailable(f"the open rounds are unavailable: {error}") from error


__all__ = [
    "ROUND_TTL",
    "SEALED_ROUNDS",
    "DatabaseRoundStore",
    "FileRoundStore",
    "OpenRound",
    "RoundStore",
    "Settlement",
    "Version",
]
