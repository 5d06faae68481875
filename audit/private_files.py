"""Private local files (the mapping store and the web's round store, SQLite in WAL; the audit
secret and the pack signing key): created 0600, never through a symlink.

Shared by everything that must never be readable by anyone but the server's user.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import time
from contextlib import suppress
from pathlib import Path

PRIVATE_MODE = 0o600


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
