"""Private local files (the mapping store and the web's round store, SQLite in WAL; the audit
secret, the pack signing key and the store key file): created 0600, never through a symlink.

Shared by everything that must never be readable by anyone but the server's user.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import quote

PRIVATE_MODE = 0o600
ROWS_PER_INSERT = 500
"""At most this many rows in one INSERT statement (SQLite binds at most 32,766 values)."""


class SecretHolder:
    """Base of the objects that hold secret keys: they are never pickled, so no copy of a key
    leaves the process that way (their reprs, likewise, never show one)."""

    __slots__ = ()

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError(f"a {type(self).__name__} holds secret keys and is not pickled")


def create_private(path: Path) -> int | None:
    """Create path with mode exactly 0600 (never through a symlink) and return its open
    descriptor; None if it exists already."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(path, flags, PRIVATE_MODE)
    except FileExistsError:
        return None
    os.fchmod(descriptor, PRIVATE_MODE)  # the umask may have narrowed it; set it exactly
    return descriptor


def write_private_once(path: Path, data: bytes) -> None:
    """Create path (mode 0600) holding data, unless it exists. Two processes starting together
    agree: each writes a complete temporary file and links it into place; the link fails for
    all but the first, and every process then reads the winner's. OSError if it cannot."""
    if path.exists():
        return
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    descriptor = create_private(temporary)
    if descriptor is None:
        raise FileExistsError(f"could not create a temporary file {temporary}")
    try:
        try:
            os.write(descriptor, data)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        with suppress(FileExistsError):  # another process was first: keep its file
            os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def use_wal(connection: sqlite3.Connection, timeout_s: float) -> None:
    """PRAGMA journal_mode = WAL, retried while another process holds the database (the
    switch does not wait on the busy timeout)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def insert_rows(
    connection: sqlite3.Connection, head: str, rows: Sequence[tuple[object, ...]], tail: str = ""
) -> None:
    """`head VALUES (?, …), (?, …) … tail` for rows (tuples of one width): one statement per
    ROWS_PER_INSERT rows, where executemany steps once per row. Each step releases the
    interpreter's lock, and a server's writer thread gets it back from its busy event loop
    only at the next switch interval."""
    for start in range(0, len(rows), ROWS_PER_INSERT):
        chunk = rows[start : start + ROWS_PER_INSERT]
        marks = "(" + ", ".join("?" * len(chunk[0])) + ")"
        connection.execute(
            f"{head} VALUES {', '.join([marks] * len(chunk))} {tail}".rstrip(),
            [value for row in chunk for value in row],
        )


class PrivateDatabase:
    """A private SQLite file's connections: one per thread, kept open.

    Kept open because closing the last connection of a WAL database checkpoints it and removes
    its -wal file (an fsync and a file creation on every request); one per thread because a
    sqlite3 connection is not shared between threads. `mode=rw`: SQLite never creates the file
    itself, so never with a wide mode. A connection that failed is closed and made anew.
    """

    def __init__(
        self, path: Path, timeout_s: float, failure: Callable[[sqlite3.Error], Exception]
    ) -> None:
        self.path = path
        self._timeout_s = timeout_s
        self._failure = failure
        self._local = threading.local()

    def _open(self) -> sqlite3.Connection:
        uri = f"file:{quote(str(self.path.resolve()))}?mode=rw"
        connection = sqlite3.connect(
            uri, uri=True, timeout=self._timeout_s, isolation_level=None, check_same_thread=True
        )
        connection.execute(f"PRAGMA busy_timeout = {int(self._timeout_s * 1000)}")
        # As the main database: in WAL, a commit is safe against a crash of the process; only
        # a power cut may lose the last commits, never corrupt the file.
        connection.execute("PRAGMA synchronous = NORMAL")
        return connection

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """This thread's connection, outside any transaction; errors become failure(error)."""
        try:
            connection = getattr(self._local, "connection", None)
            if connection is None:
                connection = self._local.connection = self._open()
            yield connection
        except sqlite3.Error as error:
            self.forget()
            raise self._failure(error) from error

    def forget(self) -> None:
        """Close this thread's connection (the next use opens a new one)."""
        connection = getattr(self._local, "connection", None)
        self._local.connection = None
        if connection is not None:
            with suppress(sqlite3.Error):
                connection.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE): committed when the block ends, rolled back
        if it raises."""
        with self.connection() as connection:
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
