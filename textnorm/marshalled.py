"""Plain values kept in files with `marshal`, written atomically (legaldb's snapshot and what
is derived beside it, the extractor's compiled pattern): loads at C speed and, unlike pickle,
cannot run code."""

from __future__ import annotations

import contextlib
import marshal
import os
import tempfile
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
