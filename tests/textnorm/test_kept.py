"""What is compiled once per machine behaves as what is compiled anew: a kept pattern matches as
`re.compile`'s, and dataclasses made from kept code are the ones `dataclasses` makes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from re import _compiler, _parser  # type: ignore[attr-defined]  # CPython internals

import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor.candidates import CANDIDATE_RE, _scan_pattern
from textnorm import kept
from textnorm.kept import kept_pattern

PATTERN = r"(?P<law>《[^《》]{1,20}》)?第(?P<number>[一二三四五六七八九十百千0-9]{1,8})条"
TEXTS = ["依据《劳动法》第十条和第3条。", "第条", "《民法典》第五百七十七条", ""]


@pytest.fixture
def kept_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary directory kept files are written to, this test's own."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def _matches(
    pattern: re.Pattern[str], text: str
) -> list[tuple[tuple[int, int], dict[str, str | None]]]:
    return [(m.span(), m.groupdict()) for m in pattern.finditer(text)]


def test_a_kept_pattern_is_the_compiled_one(kept_dir: Path) -> None:
    """Made, then read back from its file: the same pattern, flags, groups and matches."""
    expected = re.compile(PATTERN, re.IGNORECASE)
    made = kept_pattern(PATTERN, re.IGNORECASE)
    assert len(list(kept_dir.glob("lexgate-regex-*.marshal"))) == 1
    read_back = kept_pattern(PATTERN, re.IGNORECASE)
    for pattern in (made, read_back):
        assert (pattern.pattern, pattern.flags, pattern.groups, pattern.groupindex) == (
            expected.pattern,
            expected.flags,
            expected.groups,
            expected.groupindex,
        )
        for text in TEXTS:
            assert _matches(pattern, text) == _matches(expected, text)


def test_a_broken_or_foreign_file_is_replaced(kept_dir: Path) -> None:
    """A file that is not a program, or one the engine refuses, gives re.compile's pattern and
    is written anew."""
    kept_pattern(PATTERN)
    (path,) = kept_dir.glob("lexgate-regex-*.marshal")
    for junk in (b"\x00 not marshal", kept.marshal.dumps((0, [999, 1, 2], 0, {}, ()))):
        path.write_bytes(junk)
        pattern = kept_pattern(PATTERN)
        assert _matches(pattern, TEXTS[0]) == _matches(re.compile(PATTERN), TEXTS[0])
        assert path.read_bytes() != junk


def test_a_kept_program_is_read_back_with_its_equal_numbers_shared(kept_dir: Path) -> None:
    """The pre-scan's program (32,000 numbers, some 300 distinct) read back from its file is
    re's program, each distinct number one object (marshal wrote the others as references)."""
    pattern = _scan_pattern(title_tails=False, divisions=False)
    expected = [int(op) for op in _compiler._code(_parser.parse(pattern, 0), 0)]
    kept_pattern(pattern)
    (path,) = kept_dir.glob("lexgate-regex-*.marshal")
    program = kept._read(path)
    assert program[1] == expected
    assert len({id(number) for number in program[1]}) == len(set(expected)) < len(expected) / 50
    fresh = re.compile(pattern)
    for text in (*TEXTS, "根据《中华人民共和国民法典》第一编第五百七十七条、本法第3条"):
        assert _matches(kept_pattern(pattern), text) == _matches(fresh, text)


@given(
    st.text(alphabet="第一二三十百条款项之《》民法典劳动合同法依据本法、，和及至 \n", max_size=80)
)
def test_the_pre_scan_matches_as_compiled(text: str) -> None:
    """The extractor's kept pre-scan finds what the same pattern compiled by re finds."""
    fresh = re.compile(CANDIDATE_RE.pattern, CANDIDATE_RE.flags)
    assert _matches(CANDIDATE_RE, text) == _matches(fresh, text)


# Dataclasses of every kind the code uses and a few more, described by what they do: run in a
# fresh process (keep_generated_code changes the process's dataclasses module for good).
DESCRIBE = """
import dataclasses, inspect, json, sys
from dataclasses import InitVar, dataclass, field
if sys.argv[1] == "kept":
    from textnorm.kept import keep_generated_code
    keep_generated_code()

@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int = 0
    note: str | None = field(default=None, repr=False, compare=False)

@dataclass(order=True)
class Ranked:
    rank: int
    names: list[str] = field(default_factory=list)
    scale: InitVar[int] = 1
    def __post_init__(self, scale: int) -> None:
        self.rank *= scale

@dataclass(frozen=True, kw_only=True, eq=False)
class Options:
    name: str
    size: int = 3

span, ranked = Span(1, 2, "x"), Ranked(2, ["a"], scale=3)
try:
    span.start = 5
    frozen = "no"
except dataclasses.FrozenInstanceError as error:
    frozen = repr(error)
described = {
    "repr": [repr(span), repr(ranked), repr(Options(name="n"))],
    "eq": [span == Span(1, 2, "y"), ranked == Ranked(2, ["a"], 3), ranked < Ranked(7)],
    "hash": [hash(span) == hash((1, 2)), Ranked.__hash__ is None, Options.__eq__ is object.__eq__],
    "frozen": frozen,
    "slots": [Span.__slots__, hasattr(span, "__dict__")],
    "signatures": [str(inspect.signature(c)) for c in (Span, Ranked, Options)],
    "annotations": [repr(c.__init__.__annotations__) for c in (Span, Ranked, Options)],
    "match_args": [Span.__match_args__, Ranked.__match_args__],
    "names": [c.__init__.__qualname__ for c in (Span, Ranked)] + [Span.__repr__.__qualname__],
    "replace": repr(dataclasses.replace(span, end=9)),
}
print(json.dumps(described, sort_keys=True))
"""


def _describe(how: str, temporary: Path) -> dict[str, object]:
    env = {**os.environ, "TMPDIR": str(temporary)}
    done = subprocess.run(
        [sys.executable, "-c", DESCRIBE, how],
        env=env, capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    described: dict[str, object] = json.loads(done.stdout)
    return described


def test_dataclasses_from_kept_code_are_the_ones_dataclasses_makes(tmp_path: Path) -> None:
    """Made plainly, made while keeping their code, then made from the kept code: the same
    repr, equality, order, hash, immutability, slots, signatures and annotations."""
    plain = _describe("plain", tmp_path)
    assert not list(tmp_path.glob("lexgate-code-*"))
    first = _describe("kept", tmp_path)
    (path,) = tmp_path.glob("lexgate-code-*.marshal")
    written = path.stat().st_mtime_ns
    second = _describe("kept", tmp_path)
    assert plain == first == second
    assert path.stat().st_mtime_ns == written  # nothing new to keep: the file is left alone
    assert "FrozenInstanceError" in str(plain["frozen"]) and plain["eq"] == [True, True, True]


def test_a_broken_code_file_is_replaced(tmp_path: Path) -> None:
    """A kept code file that is not marshal, or whose entries hold no code, is compiled anew
    and rewritten."""
    plain = _describe("plain", tmp_path)
    _describe("kept", tmp_path)
    (path,) = tmp_path.glob("lexgate-code-*.marshal")
    sources = list(kept.marshal.loads(path.read_bytes()))
    # Each source's entry: not marshal, marshal of no code, no bytes at all.
    junk_entries = [dict.fromkeys(sources, bad) for bad in (b"\x00", kept.marshal.dumps(5), "x")]
    for junk in (b"\x00 not marshal", *map(kept.marshal.dumps, junk_entries)):
        path.write_bytes(junk)
        assert _describe("kept", tmp_path) == plain
        assert path.read_bytes() != junk
