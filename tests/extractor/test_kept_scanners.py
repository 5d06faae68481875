"""The grammar's lexers compile their scanners through textnorm.kept: the parser parses every
span as a parser whose lexers compile them with `re` does."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lark import Lark
from lark.exceptions import LarkError

from extractor import grammar
from extractor.candidates import find_candidates
from tests.conftest import SHARED_DIR
from tests.extractor.test_plain_parts import _law_parts, _runs
from textnorm.kept import KeptRegexModule

ANSWERS = SHARED_DIR / "eval" / "flzx_dev_answers.jsonl"
STARTS = ("law_part", "references")


def _new_parser() -> Lark:
    """A parser made as grammar.PARSER is, its lexers compiling with `re`."""
    return Lark.open(
        "citation.lark",
        rel_to=grammar.__file__,
        start=list(STARTS),
        parser="lalr",
        strict=True,
        propagate_positions=False,
        transformer=grammar.ChainBuilder(),
        cache=True,
    )


def _lexers(parser: Lark) -> list[Any]:
    contextual = parser.parser.lexer
    return [*contextual.lexers.values(), contextual.root_lexer]


def _parsed(parser: Lark, text: str, start: str) -> object:
    try:
        return parser.parse(text, start=start)
    except LarkError as error:
        return type(error)


@pytest.fixture(scope="module")
def plain_parser() -> Lark:
    """A parser whose lexers compile their scanners with `re`, as Lark has it."""
    parser = _new_parser()
    assert all(lexer.re is re for lexer in _lexers(parser))
    return parser


@pytest.fixture
def kept_parsers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Lark, Lark]:
    """Two parsers of their own given the kept module (made before the temporary directory
    is this test's own, where their kept files then go: Lark's cache is not there)."""
    parsers = (_new_parser(), _new_parser())
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    for parser in parsers:
        given = grammar._keep_scanner_programs(parser)
        assert given == len({id(lexer) for lexer in _lexers(parser)})
    return parsers


def test_the_parsers_lexers_compile_through_the_kept_module() -> None:
    """Every lexer of grammar.PARSER has the kept module as its `re`."""
    lexers = _lexers(grammar.PARSER)
    assert lexers
    assert all(isinstance(lexer.re, KeptRegexModule) for lexer in lexers)
    assert grammar._keep_scanner_programs(grammar.PARSER) == 0  # given once


def test_a_parser_with_built_scanners_is_left_as_it_is(plain_parser: Lark) -> None:
    """A lexer whose scanner is built already keeps the module it was built with."""
    plain_parser.parse("第一条", start="references")
    built = [lexer for lexer in _lexers(plain_parser) if lexer._scanner is not None]
    grammar._keep_scanner_programs(plain_parser)
    assert built and all(lexer.re is re for lexer in built)


def _real_spans() -> list[tuple[str, str]]:
    """Every distinct law part and run of the flzx answers' chains, with its start rule."""
    spans: dict[tuple[str, str], None] = {}
    for line in ANSWERS.read_text(encoding="utf-8").splitlines():
        text = json.loads(line)["answer"]
        for candidate in find_candidates(text, None):
            if candidate.kind != "chain":
                continue
            if candidate.start < candidate.run_start:
                spans[text[candidate.start : candidate.run_start], "law_part"] = None
            spans[text[candidate.run_start : candidate.end], "references"] = None
    return list(spans)


def test_real_spans_parse_alike(
    plain_parser: Lark, kept_parsers: tuple[Lark, Lark], tmp_path: Path
) -> None:
    """Every law part and run of the flzx answers parses (or fails) alike through both
    parsers: the kept programs made by one parser, then read back by another."""
    spans = _real_spans()
    assert len(spans) > 1000
    expected = [_parsed(plain_parser, text, start) for text, start in spans]
    making, reading = kept_parsers
    assert [_parsed(making, text, start) for text, start in spans] == expected
    made = sorted(tmp_path.glob("lexgate-regex-*.marshal"))
    assert len(made) > 20  # each scanner and terminal a file
    assert [_parsed(reading, text, start) for text, start in spans] == expected
    assert sorted(tmp_path.glob("lexgate-regex-*.marshal")) == made


@given(
    st.one_of(
        _law_parts.map(lambda text: (text, "law_part")),
        _runs.map(lambda text: (text, "references")),
    )
)
def test_any_span_parses_alike(plain_parser: Lark, span: tuple[str, str]) -> None:
    """A law part or run of citation pieces parses (or fails) through grammar.PARSER as
    through a parser whose lexers compile with `re`."""
    text, start = span
    assert _parsed(grammar.PARSER, text, start) == _parsed(plain_parser, text, start)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"(?P<NUM>[一二三四五六七八九十]+)|(?P<ARTICLE>条)", "十二条"),
        (r"(?P<NUM>[一二三四五六七八九十]+)|(?P<ARTICLE>条)", "条"),
        (r"(?P<NUM>[0-9]+)", "x1"),
        (r"[\u4e00-\u9fff]{1,3}法", "劳动法"),
    ],
    ids=["group", "other-group", "no-match", "cjk"],
)
def test_the_kept_module_compiles_and_matches_as_re(
    pattern: str, text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """compile and match give what re's give (groups, last group), one pattern per key."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    kept = KeptRegexModule()
    compiled, expected = kept.compile(pattern), re.compile(pattern)
    assert kept.compile(pattern) is compiled
    ignoring_case = kept.compile(pattern, re.IGNORECASE)
    assert ignoring_case is not compiled
    assert ignoring_case.flags == re.compile(pattern, re.IGNORECASE).flags
    assert (compiled.pattern, compiled.flags, compiled.groupindex) == (
        expected.pattern,
        expected.flags,
        expected.groupindex,
    )
    for match, wanted in (
        (compiled.match(text), expected.match(text)),
        (kept.match(pattern, text), re.match(pattern, text)),
    ):
        assert (match is None) == (wanted is None)
        if match is not None and wanted is not None:
            assert (match.span(), match.lastgroup, match.groups()) == (
                wanted.span(),
                wanted.lastgroup,
                wanted.groups(),
            )
    assert kept.error is re.error
