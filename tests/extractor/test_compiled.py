"""A pattern compiled once per machine matches as `re.compile`'s, read back or made anew."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor import compiled
from extractor.candidates import CANDIDATE_RE
from extractor.compiled import kept_pattern

PATTERN = r"(?P<law>《[^《》]{1,20}》)?第(?P<number>[一二三四五六七八九十百千0-9]{1,8})条"
TEXTS = ["依据《劳动法》第十条和第3条。", "第条", "《民法典》第五百七十七条", ""]


@pytest.fixture
def kept_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary directory kept_pattern writes to, this test's own."""
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
    path = compiled._kept_path(PATTERN, 0)
    for junk in (b"\x00 not marshal", compiled.marshal.dumps((0, [999, 1, 2], 0, {}, ()))):
        path.write_bytes(junk)
        pattern = kept_pattern(PATTERN)
        assert _matches(pattern, TEXTS[0]) == _matches(re.compile(PATTERN), TEXTS[0])
        assert path.read_bytes() != junk


@given(
    st.text(alphabet="第一二三十百条款项之《》民法典劳动合同法依据本法、，和及至 \n", max_size=80)
)
def test_the_pre_scan_matches_as_compiled(text: str) -> None:
    """The extractor's kept pre-scan finds what the same pattern compiled by re finds."""
    fresh = re.compile(CANDIDATE_RE.pattern, CANDIDATE_RE.flags)
    assert _matches(CANDIDATE_RE, text) == _matches(fresh, text)
