"""A large regular expression compiled once per machine, not once per process.

Compiling the pre-scan's pattern (`candidates.CANDIDATE_RE`, 34,000 instructions of the
regex engine's program, most of them its Chinese character sets) took a tenth of a `lexgate
check` process's start-up, every time. `kept_pattern` keeps the compiled program in the
temporary directory (as Lark's `cache=True` keeps the grammar beside it) and hands it back to
the engine (`_sre.compile`, what `re.compile` itself ends with), which checks the program
before running it. The file is named after the pattern, the flags and the exact Python build;
one that is missing, foreign, unreadable or refused is replaced by `re.compile`'s own result.
CPython's internal steps (`re._parser`, `re._compiler`) are used only to make the program;
where they differ, the pattern is compiled the usual way.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from textnorm.marshalled import write_marshalled

try:
    import _sre
    from re import _compiler, _parser  # type: ignore[attr-defined]  # CPython internals

    KEPT = True
except ImportError:  # pragma: no cover - not CPython
    KEPT = False

FORMAT = 1  # raise when the layout of the kept file changes


def kept_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """re.compile(pattern, flags), its program read back when an earlier process kept it."""
    if not KEPT:  # pragma: no cover - not CPython
        return re.compile(pattern, flags)
    path = _kept_path(pattern, flags)
    compiled = _read(path, pattern)
    if compiled is None:
        try:
            program = _program(pattern, flags)
            compiled = _sre.compile(pattern, *program)
        except Exception:  # pragma: no cover - another CPython's internals
            return re.compile(pattern, flags)
        write_marshalled(path, program)  # a directory that cannot be written: done without
    return compiled


def _kept_path(pattern: str, flags: int) -> Path:
    build = f"{FORMAT}\0{sys.version}\0{_sre.MAGIC}\0{_sre.CODESIZE}\0{flags}\0{pattern}"
    name = hashlib.sha256(build.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return Path(tempfile.gettempdir()) / f"lexgate-regex-{name}.marshal"


def _program(pattern: str, flags: int) -> tuple[Any, ...]:
    """What `re._compiler.compile` hands to `_sre.compile` after the pattern: the flags, the
    program, the group count, names by group and groups by name (as plain values)."""
    parsed = _parser.parse(pattern, flags)
    code = [int(op) for op in _compiler._code(parsed, flags)]  # opcodes are int subclasses
    names = dict(parsed.state.groupdict)
    by_index: list[str | None] = [None] * parsed.state.groups
    for name, index in names.items():
        by_index[index] = name
    return (int(flags | parsed.state.flags), code, parsed.state.groups - 1, names, tuple(by_index))


def _read(path: Path, pattern: str) -> re.Pattern[str] | None:
    """The kept pattern, when the file is ours and the engine takes its program."""
    try:
        with path.open("rb") as handle:
            if os.fstat(handle.fileno()).st_uid != os.getuid():
                return None  # another user's file in a shared directory
            program = marshal.load(handle)
        return _sre.compile(pattern, *program)
    except Exception:  # missing, unreadable, or a program the engine refuses
        return None
