"""The citation grammar (citation.lark) and the transformer that builds citation parts.

The pre-scan cuts a candidate span into its law part (《…》的, 本法 …) and its run of
references (第…条…); `parse_law` and `parse_run` parse each, with offsets relative to the
part, memoised on its text: real answers repeat the same laws and the same runs over and over,
and one run follows many laws (the 3,349 distinct spans of the development answers are 413
distinct law parts and 1,067 distinct runs).
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Any, NamedTuple

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import LarkError

from extractor.candidates import REF_WORDS
from extractor.errors import SpanParseError
from extractor.models import LawMention, Reference, Run, new_law_mention, new_reference, new_run
from textnorm import cn_to_int
from textnorm.kept import KeptRegexModule, kept_pattern

MAX_RANGE = 30  # a range wider than this yields its two ends only (第1至1000条 is noise)
_CN_NUMERAL = set("一二三四五六七八九十")


class _Part(NamedTuple):
    """A 款 or 项 inside a reference, before it is folded into the Reference."""

    unit: str  # 款 or 项
    number: int
    start: int
    end: int
    last: int | None = None  # the end of a range of 项 (第一项至第三项)
    more: tuple[int, ...] = ()  # the further numbers of a list (第二、三款, 第（一）、（二）项)

    def numbers(self) -> list[int]:
        """The numbers this part stands for (a range is expanded, within MAX_RANGE)."""
        if self.more:
            return list(dict.fromkeys((self.number, *self.more)))
        if self.last is not None and self.number < self.last <= self.number + MAX_RANGE:
            return list(range(self.number, self.last + 1))
        return [self.number]


def _listed(unit: str, ordinal: Token, rest: tuple[Token, ...]) -> _Part:
    """A list of 款 or 项 numbers sharing one 第…款/项: 第二、三款, 第（一）、（二）项."""
    first, *more = [_number(token) for token in rest if token.type in ("NUM", "PAREN_NUM")]
    return _Part(unit, first, ordinal.start_pos or 0, rest[-1].end_pos or 0, more=tuple(more))


def _number(token: Token) -> int:
    return _numeral(str(token))


@lru_cache(maxsize=4096)
def _numeral(text: str) -> int:
    """The int a numeral token stands for (memoised: answers use the same few numbers)."""
    return cn_to_int(text.strip("（）() \t"))


def _law(kind: str, name_token: Token, *rest: Token, marks: tuple[int, int] = (1, 1)) -> LawMention:
    """A LawMention from the name token and an optional TITLE_TAIL and NOTE; `marks` is how
    many characters of title or quote marks the token has before and after the name."""
    text = str(name_token)
    text = text[marks[0] : len(text) - marks[1]].strip()
    end = name_token.end_pos
    version_hint = None
    for token in rest:
        end = token.end_pos
        if token.type == "TITLE_TAIL":
            text += str(token)
            continue
        note = str(token)[1:-1].strip()
        if note and all(ch in _CN_NUMERAL for ch in note):
            text += f"（{note}）"  # 《…解释》（三）: the number belongs to the name
        elif not note.startswith(("以下简称", "下称", "简称")):
            version_hint = note
    return LawMention(kind, text, name_token.start_pos or 0, end or 0, version_hint)  # type: ignore[arg-type]


@v_args(inline=True)
class ChainBuilder(Transformer[Token, Any]):
    """Parse tree of a law part → `LawMention`, of a run → `Run` (numerals as ints)."""

    def law_part(self, law: LawMention, *gaps: None) -> LawMention:
        return law

    def titled_law(self, title: Token, *rest: Token) -> LawMention:
        return _law("title", title, *rest)

    def cut_title_law(self, title: Token, *rest: Token) -> LawMention:
        return _law("title", title, *rest, marks=(0, 1))  # …条例》: the 《 was cut off

    def named_law(self, name: Token, *rest: Token) -> LawMention:
        return _law("name", name, *rest, marks=(0, 0))

    def quoted_law(self, name: Token, *rest: Token) -> LawMention:
        return _law("quoted", name, *rest)

    def ref_word_law(self, word: Token) -> LawMention:
        return LawMention("ref_word", str(word), word.start_pos or 0, word.end_pos or 0)

    def connector(self, *tokens: Token) -> None:
        return None

    part = connector
    division = connector

    def references(self, *children: Any) -> Run:
        refs: list[Reference] = []
        for child in children:
            if isinstance(child, Reference):
                refs.append(child)
            elif isinstance(child, tuple):
                refs.extend(child)
        return Run(tuple(refs), max(ref.end for ref in refs))

    def paragraph(self, ordinal: Token, number: Token, unit: Token) -> _Part:
        return _Part("款", _number(number), ordinal.start_pos or 0, unit.end_pos or 0)

    def item(self, ordinal: Token, number: Token, unit: Token) -> _Part:
        return _Part("项", _number(number), ordinal.start_pos or 0, unit.end_pos or 0)

    def paragraph_list(self, ordinal: Token, *rest: Token) -> _Part:
        return _listed("款", ordinal, rest)

    def item_list(self, ordinal: Token, *rest: Token) -> _Part:
        return _listed("项", ordinal, rest)

    def item_range(self, low: _Part, to: Token, high: _Part) -> _Part:
        if low.more or high.more:  # 第一、二项至第四项: read as the list and the last
            return _Part("项", low.number, low.start, high.end, more=(*low.more, *high.numbers()))
        return _Part("项", low.number, low.start, high.end, high.number)

    def article(
        self, ordinal: Token, number: Token, unit: Token, *rest: Any
    ) -> tuple[Reference, ...]:
        suffix = None
        end = unit.end_pos or 0
        parts = {part.unit: part for part in rest if isinstance(part, _Part)}
        for part in rest:
            if isinstance(part, Token):  # SUFFIX
                suffix = str(part)
                end = part.end_pos or end
        if parts:
            end = max(part.end for part in parts.values())
        reference = Reference(ordinal.start_pos or 0, end, _number(number), suffix)
        return _with_parts(reference, parts.get("款"), parts.get("项"))

    def bare_article(self, number: Token, unit: Token, *rest: Any) -> tuple[Reference, ...]:
        return self.article(number, number, unit, *rest)

    def paragraph_only(self, paragraph: _Part, item: _Part | None = None) -> tuple[Reference, ...]:
        end = item.end if item else paragraph.end
        return _with_parts(Reference(paragraph.start, end, None), paragraph, item)

    def item_only(self, item: _Part) -> tuple[Reference, ...]:
        return _with_items(Reference(item.start, item.end, None), item)

    def compact(self, ordinal: Token, *rest: Token) -> tuple[Reference, ...]:
        start, end = ordinal.start_pos or 0, rest[-1].end_pos or 0
        numbers = [_number(token) for token in rest if token.type == "NUM"]
        return tuple(Reference(start, end, number) for number in numbers)

    def range(self, ordinal: Token, *rest: Token) -> tuple[Reference, ...]:
        numbers = [_number(token) for token in rest if token.type == "NUM"]
        low, high = numbers[0], numbers[-1]
        start, end = ordinal.start_pos or 0, rest[-1].end_pos or 0
        if low < high <= low + MAX_RANGE:
            articles = list(range(low, high + 1))
        else:
            articles = [low] if low == high else [low, high]
        return tuple(Reference(start, end, number, range=True) for number in articles)


def _with_items(reference: Reference, item: _Part | None) -> tuple[Reference, ...]:
    """The reference with its 项: one reference per 项 of a list, or of a range (marked range)."""
    if item is None:
        return (reference,)
    numbers = item.numbers()
    ranged = len(numbers) > 1 and not item.more
    return tuple(replace(reference, item=n, range=ranged) for n in numbers)


def _with_parts(
    reference: Reference, paragraph: _Part | None, item: _Part | None
) -> tuple[Reference, ...]:
    """The reference with its 款 and 项: one reference per 款 of a list (第二、三款), the 项
    (第二、三款第一项, rare) going with the last 款 only."""
    if paragraph is None:
        return _with_items(reference, item)
    *firsts, last = paragraph.numbers()
    listed = tuple(replace(reference, paragraph=n) for n in firsts)
    return listed + _with_items(replace(reference, paragraph=last), item)


# The transformer runs inside the LALR parse (no tree is built: twice as fast). It reads
# offsets from the tokens, which always carry them; propagate_positions would only fill the
# positions of tree nodes, which are never built, at the cost of a wrapper around every rule.
PARSER = Lark.open(
    "citation.lark",
    rel_to=__file__,
    start=["law_part", "references"],
    parser="lalr",
    strict=True,
    propagate_positions=False,
    transformer=ChainBuilder(),
    cache=True,  # building the lexer checks terminal collisions (seconds); cached in tmp
)


def _keep_scanner_programs(parser: Lark) -> int:
    """Have the parser's lexers compile their scanners through `KeptRegexModule`: each lexer
    of the contextual lexer compiles its scanner the first time its parser state is met, while
    answers are checked, and re's compiler (Python) made that most of a batch's parsing. The
    scanners match as compiled anew; a parser built otherwise is left as it is. Returns how
    many lexers were given the module."""
    contextual: Any = getattr(parser.parser, "lexer", None)
    lexers = [*getattr(contextual, "lexers", {}).values(), getattr(contextual, "root_lexer", None)]
    kept = KeptRegexModule()
    given = 0
    for lexer in {id(lexer): lexer for lexer in lexers if lexer is not None}.values():
        if getattr(lexer, "re", None) is re and getattr(lexer, "_scanner", True) is None:
            lexer.re = kept
            given += 1
    return given


_keep_scanner_programs(PARSER)


# ---------------------------------------------------------------- plain parts without Lark
# Most law parts and runs take one of a few plain shapes (《劳动法》, 本法, 劳动法, 第四十七条,
# 第四十七条第二款、第五十条), whose parse a regular expression fully determines: these are
# built here as the transformer would build them, and everything else is parsed by Lark. The
# patterns use citation.lark's terminals (NUM, TITLE, QUOTED_NAME, REF_WORD), narrowed so
# that no other reading is possible; tests/extractor/test_plain_parts.py checks that both
# give the same parts for random strings of citation pieces.
_NUM = r"[0-9０-９]+|[零〇一二两三四五六七八九十百千]+"  # the NUM terminal
_PAREN_NUM = r"[（(][ \t]*(?:[0-9０-９]+|[一二三四五六七八九十]+)[ \t]*[）)]"  # PAREN_NUM
# article: ORD NUM ARTICLE SUFFIX? paragraph? item? (第五条之一第二款第三项), with the spaces
# answers write around an article's number (第 43 条: WS is ignored) and a 项 in brackets
_PLAIN_ARTICLE = (
    rf"第 *({_NUM}) *条(之[一二三四五六七八九十]+)?(?:第({_NUM})款)?(?:第({_NUM}|{_PAREN_NUM})项)?"
)
_PLAIN_ARTICLE_RE = kept_pattern(_PLAIN_ARTICLE)
# Members joined by one-character SEPs (or, 或者 and 以及 are left to Lark).
_PLAIN_RUN_RE = kept_pattern(rf"(?:{_PLAIN_ARTICLE})(?:[、，,和及与](?:{_PLAIN_ARTICLE}))*")
# A title or quoted name and the spacing after it (WS is ignored), and a bare name: NAME is
# the whole part when it holds no character that may end it (spacing, a note, a comma or
# colon, 第; 的 or 中 as its last character: 中华人民共和国刑法 is a NAME, 刑法中 a NAME and a gap)
# or start another terminal (《》“”", an HTML tag).
_PLAIN_LAW_RE = kept_pattern(
    r"(?:(?P<title>《[^《》\n]+》)|(?P<quoted>“[^“”\n]+”|\"[^\"\n]+\"))\s*"
    r"|(?P<name>[^\s《》“”\"第（）()，,：:<]*[^\s《》“”\"第（）()的中，,：:<])"
)
_REF_WORDS = tuple(REF_WORDS.split("|"))


def _plain_law(part: str) -> LawMention | None:
    """The law part as the grammar reads it, where it is a plain title, quoted name, ref word
    or bare name; None for any other part."""
    match = _PLAIN_LAW_RE.fullmatch(part)
    if match is None:
        return None
    title, quoted, name = match.group("title", "quoted", "name")
    if title is not None:
        return new_law_mention("title", title[1:-1].strip(), 0, len(title), None)
    if quoted is not None:
        return new_law_mention("quoted", quoted[1:-1].strip(), 0, len(quoted), None)
    if name.startswith(_REF_WORDS):  # REF_WORD is lexed first: 本法律… is no NAME
        return new_law_mention("ref_word", name, 0, len(name), None) if name in _REF_WORDS else None
    return new_law_mention("name", name, 0, len(name), None)


def _plain_run(run: str) -> Run | None:
    """The run as the grammar reads it, where it is a list of plain articles (第N条, with a
    之M, a 第M款 and a 第K项 or 第（K）项); None for any other run."""
    whole = _PLAIN_RUN_RE.fullmatch(run)
    if whole is None:
        return None
    # Groups 1-4 are the first member's, 5-8 a further one's: a run of one member (most runs)
    # is read from its own match, without a second scan.
    members = (whole,) if whole.start(5) < 0 else _PLAIN_ARTICLE_RE.finditer(run)
    references = []
    for member in members:
        article, suffix, paragraph, item = member.group(1, 2, 3, 4)
        references.append(
            new_reference(
                member.start(),
                member.end(),
                _numeral(article),
                suffix,
                None if paragraph is None else _numeral(paragraph),
                None if item is None else _numeral(item),
                False,
            )
        )
    return new_run(tuple(references), references[-1].end)


@lru_cache(maxsize=4096)
def parse_law(part: str) -> LawMention:
    """Parse a span's law part (the law and the gap before its run: 《劳动法》的, 本法);
    raise SpanParseError where the grammar rejects it."""
    plain = _plain_law(part)
    if plain is not None:
        return plain
    try:
        law: LawMention = PARSER.parse(part, start="law_part")  # type: ignore[assignment]
    except LarkError as error:
        raise SpanParseError(f"not a law part: {part[:80]!r}") from error
    return law


@lru_cache(maxsize=16384)
def parse_run(run: str) -> Run:
    """Parse a span's run of references (第四十四条第四项、第五项); raise SpanParseError where
    the grammar rejects it."""
    plain = _plain_run(run)
    if plain is not None:
        return plain
    try:
        parsed: Run = PARSER.parse(run, start="references")  # type: ignore[assignment]
    except LarkError as error:
        raise SpanParseError(f"not a run of references: {run[:80]!r}") from error
    return parsed


def clear_memos() -> None:
    """Forget the parsed parts and numerals (a benchmark's cold pass starts from nothing)."""
    parse_law.cache_clear()
    parse_run.cache_clear()
    _numeral.cache_clear()
