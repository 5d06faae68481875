"""Private local SQLite files (the mapping store, the web's round store): created 0600, WAL.

Shared by every store that must never be readable by anyone but the server's user.
"""

from __future__ import annotations

import os
import sqlite3
import time
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
