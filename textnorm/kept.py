"""What every process would compile anew, compiled once per machine and read back.

Two kinds of compiling took a third of a `lexgate check` process's start-up, every time:
- Regular expressions: re's compiler is written in Python, and a Chinese character set
  (`[\\u4e00-\\u9fff]`) costs it milliseconds. `kept_pattern` keeps a pattern's compiled program
  and hands it back to the engine (`_sre.compile`, what `re.compile` itself ends with), which
  checks the program before running it. CPython's internal steps (`re._parser`,
  `re._compiler`) are used only to make the program; where they differ, the pattern is compiled
  the usual way. `KeptRegexModule` does the same for a library that is handed a `re` module
  (Lark's lexers).
- The methods `dataclasses` writes for each class (`__init__`, `__eq__`, `__repr__` …): it
  writes their source and `exec`s it, and parsing that source cost more than reading every
  module's bytecode. `keep_generated_code` has `dataclasses` run code objects compiled from
  the same source (as Python keeps a module's bytecode in `__pycache__`), so the methods are
  the ones it would make.

Each is kept in the temporary directory (as Lark's `cache=True` keeps the grammar), in a file
named after what it holds and the exact Python build. A file that is missing, unreadable,
another user's or refused is replaced by what compiling gives.
"""

from __future__ import annotations

import atexit
import hashlib
import marshal
import os
import re
import sys
import tempfile
from pathlib import Path
from types import CodeType
from typing import Any

from textnorm.marshalled import write_marshalled

try:
    import _sre
    from re import _compiler, _parser  # type: ignore[attr-defined]  # CPython internals

    KEPT = True
except ImportError:  # pragma: no cover - not CPython
    KEPT = False

FORMAT = 2  # raise when the layout of a kept file changes (2: a program's equal numbers shared)


def kept_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """re.compile(pattern, flags), its program read back when an earlier process kept it."""
    if not KEPT:  # pragma: no cover - not CPython
        return re.compile(pattern, flags)
    path = _kept_path("regex", f"{_sre.MAGIC}\0{_sre.CODESIZE}\0{flags}\0{pattern}")
    compiled = None
    program = _read(path)
    if program is not None:
        try:
            compiled = _sre.compile(pattern, *program)
        except Exception:  # a program the engine refuses
            compiled = None
    if compiled is None:
        try:
            program = _program(pattern, flags)
            compiled = _sre.compile(pattern, *program)
        except Exception:  # pragma: no cover - another CPython's internals
            return re.compile(pattern, flags)
        write_marshalled(path, program)  # a directory that cannot be written: done without
    return compiled


class KeptRegexModule:
    """What a lexer asks of the `re` module (`compile`, `match`, `error`), each program kept
    by `kept_pattern` and memoised in the process as `re`'s own cache memoises it. Lark's
    contextual lexer compiles a scanner for each parser state the first time it is met (an
    alternation of every terminal it accepts, the CJK classes among them), and each terminal
    again to see which literals it swallows: 133 M instructions of a batch check's first 600
    answers, in every process, for a grammar that never changes."""

    error = re.error

    def __init__(self) -> None:
        self._compiled: dict[tuple[str, int], re.Pattern[str]] = {}  # a grammar's few dozen

    def compile(self, pattern: str, flags: int = 0) -> re.Pattern[str]:
        """re.compile(pattern, flags)."""
        compiled = self._compiled.get((pattern, flags))
        if compiled is None:
            compiled = self._compiled[pattern, flags] = kept_pattern(pattern, flags)
        return compiled

    def match(self, pattern: str, string: str, flags: int = 0) -> re.Match[str] | None:
        """re.match(pattern, string, flags)."""
        return self.compile(pattern, flags).match(string)


def keep_generated_code() -> None:
    """From now on, the classes `dataclasses` makes in this process get their methods from
    code kept by an earlier process (compiled here and kept at exit when new)."""
    import dataclasses

    if getattr(dataclasses, "exec", None) is not None:
        return  # kept already
    path = _kept_path("code", "dataclasses, each marshalled on its own")
    kept = _read(path)
    store = _GeneratedCode(path, kept if isinstance(kept, dict) else {})
    # `dataclasses` calls exec by name: a global of the module is found before the builtin.
    dataclasses.exec = store.exec  # type: ignore[attr-defined]


class _GeneratedCode:
    """Code objects by the source they were compiled from, each marshalled on its own and
    loaded when its source is first asked for; new ones written at exit. The file is one per
    Python build, shared by every process of the machine that makes dataclasses (tests, other
    checkouts' versions of the classes): a check asks for some 370 sources, and unmarshalling
    every entry of a file grown to 1,494 cost 29 M instructions of its start-up."""

    def __init__(self, path: Path, kept: dict[str, Any]) -> None:
        self._path = path
        self._code = kept  # source -> marshal.dumps(code)
        self._made: dict[str, CodeType] = {}  # the code asked for so far (classes share some)
        self._new = False

    def exec(self, source: Any, globals: Any = None, locals: Any = None) -> None:
        """exec(source, globals, locals), a str source compiled once per machine."""
        if isinstance(source, str):
            code = self._made.get(source) or _loaded(self._code.get(source))
            if code is None:
                # dont_inherit: compiled as exec would compile it in dataclasses (no
                # `from __future__ import annotations` of this module)
                code = compile(source, "<string>", "exec", dont_inherit=True)
                self._code[source] = marshal.dumps(code)
                if not self._new:
                    self._new = True
                    atexit.register(self._write)
            self._made[source] = code
            source = code
        exec(source, globals, locals)  # the code dataclasses wrote, or compiled from it

    def _write(self) -> None:
        write_marshalled(self._path, self._code)


def _loaded(kept: object) -> CodeType | None:
    """The code object marshalled in kept (None when it is no such thing)."""
    if type(kept) is not bytes:
        return None
    try:
        code = marshal.loads(kept)
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, CodeType) else None


def _kept_path(kind: str, key: str) -> Path:
    build = f"{FORMAT}\0{sys.version}\0{kind}\0{key}"
    name = hashlib.sha256(build.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return Path(tempfile.gettempdir()) / f"lexgate-{kind}-{name}.marshal"


def _program(pattern: str, flags: int) -> tuple[Any, ...]:
    """What `re._compiler.compile` hands to `_sre.compile` after the pattern: the flags, the
    program, the group count, names by group and groups by name (as plain values)."""
    parsed = _parser.parse(pattern, flags)
    # Opcodes are int subclasses. Equal numbers are made one object, so that marshal writes
    # each number after its first as a reference to it, read back without making an int: a
    # program of Chinese classes (the pre-scan's, 32,000 numbers) holds some 300 distinct
    # ones, the 32-bit words of its character sets, and reading it back took half the time.
    shared: dict[int, int] = {}
    code = [shared.setdefault(op, op) for op in map(int, _compiler._code(parsed, flags))]
    names = dict(parsed.state.groupdict)
    by_index: list[str | None] = [None] * parsed.state.groups
    for name, index in names.items():
        by_index[index] = name
    return (int(flags | parsed.state.flags), code, parsed.state.groups - 1, names, tuple(by_index))


def _read(path: Path) -> Any:
    """The value kept in path when the file is ours (None when missing or unreadable).
    Read whole, then unmarshalled: `marshal.load` of a file object reads it in small pieces
    through Python's file methods, ten times slower for a program's 30,000 numbers."""
    try:
        with path.open("rb") as handle:
            if os.fstat(handle.fileno()).st_uid != os.getuid():
                return None  # another user's file in a shared directory
            return marshal.loads(handle.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
