"""Random ids (case ids, session ids) drawn from os.urandom a page at a time.

`uuid.uuid4()` reads 16 bytes from os.urandom per id: a system call that releases the
interpreter's lock, which a server's event loop or writer thread then gets back only at the
next switch interval (5 ms) while the other is busy. The bytes are the same kernel's random
bytes, read RANDOM_PAGE at a time; a forked process never reuses its parent's.
"""

from __future__ import annotations

import os
import threading
import uuid

RANDOM_PAGE = 4096
"""Bytes read from os.urandom at once (256 ids)."""

_lock = threading.Lock()
_page = bytearray()


def _forget_page() -> None:
    """In a forked child: the parent's unread bytes are the parent's (its ids would repeat)."""
    global _lock
    _lock = threading.Lock()
    _page.clear()


os.register_at_fork(after_in_child=_forget_page)


def _draw() -> bytes:
    with _lock:
        if len(_page) < 16:
            _page[:] = os.urandom(RANDOM_PAGE)
        drawn = bytes(_page[-16:])
        del _page[-16:]
    return drawn


def random_uuid() -> uuid.UUID:
    """A random (version 4) UUID, as `uuid.uuid4()` makes it."""
    return uuid.UUID(bytes=_draw(), version=4)


def version4_hex(drawn: bytes) -> str:
    """`uuid.UUID(bytes=drawn, version=4).hex`: the version and variant bits set in the bytes
    (RFC 4122), without making the UUID object (which costs more than the bytes)."""
    marked = bytearray(drawn)
    marked[6] = (marked[6] & 0x0F) | 0x40  # version 4
    marked[8] = (marked[8] & 0x3F) | 0x80  # variant RFC 4122
    return marked.hex()


def random_hex() -> str:
    """`random_uuid().hex`: a random version 4 UUID's 32 hex digits (case and session ids)."""
    return version4_hex(_draw())


__all__ = ["RANDOM_PAGE", "random_hex", "random_uuid", "version4_hex"]
