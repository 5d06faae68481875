"""Plain values kept in files with `marshal`, written atomically (legaldb's snapshot and what
is derived beside it, the extractor's compiled pattern): loads at C speed and, unlike pickle,
cannot run code."""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
import tempfile
from array import array
from pathlib import Path
from typing import Any


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
        data = marshal.dumps(value)
    except ValueError:  # a value marshal cannot write
        return False
    return _write_bytes(path, data)


def _write_bytes(path: Path, data: bytes) -> bool:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except (OSError, ValueError):
        return False
    return True


# A file of parts: the marshalled value, then each byte string, each of these padded to a
# multiple of 8 bytes, then the strings' lengths and their count (8 bytes each, native). A
# reader gets the strings as views of the one string it read (marshal copied each, about an
# instruction a byte), and `read_marshalled` still reads the value (marshal ignores what
# follows it).
_WORD = 8


def _padded(length: int) -> int:
    return -(-length // _WORD) * _WORD


def write_marshalled_parts(path: Path, value: Any, parts: list[bytes]) -> bool:
    """Write value and the byte strings parts atomically (as `write_marshalled`)."""
    try:
        head = marshal.dumps(value)
    except ValueError:
        return False
    chunks: list[bytes] = []
    for chunk in (head, *parts):
        chunks += (chunk, bytes(_padded(len(chunk)) - len(chunk)))
    lengths = array("Q", [len(part) for part in parts])
    lengths.append(len(parts))
    chunks.append(lengths.tobytes())
    return _write_bytes(path, b"".join(chunks))


def read_marshalled_parts(path: Path) -> tuple[object, list[memoryview]] | None:
    """The value and parts `write_marshalled_parts` wrote in path, the parts as views of the
    bytes read (8-byte aligned: bytes' own data is); None when missing, unreadable or not
    such a file."""
    try:
        data = path.read_bytes()
        value = marshal.loads(data)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if len(data) < _WORD or len(data) % _WORD:
        return None
    count = int.from_bytes(data[-_WORD:], sys.byteorder)
    end = len(data) - _WORD * (count + 1)
    if end <= 0:
        return None
    view = memoryview(data)
    lengths = view[end : len(data) - _WORD].cast("Q")
    start = end - sum(map(_padded, lengths))
    if start <= 0:
        return None
    parts = []
    for length in lengths:
        parts.append(view[start : start + length])
        start += _padded(length)
    return value, parts
