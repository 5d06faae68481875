"""Frozen data types of the extractor: what `extract` returns and what the grammar yields.

`Citation` is the public result. `LawMention`, `Reference` and `Run` are what the grammar's
transformer builds from a candidate span's law part and run (offsets relative to the part);
`extract` turns them into citations once the context (本法, continuations, the lexicon) is
known.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal, TypeVar

from textnorm.slotted import filler

LawKind = Literal["title", "name", "quoted", "ref_word"]


@dataclass(frozen=True, slots=True)
class Span:
    """A piece of the answer: `text == answer[start:end]`."""

    text: str
    start: int
    end: int

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "start": self.start, "end": self.end}


@dataclass(frozen=True, slots=True)
class Quote(Span):
    """The article content the answer gives for a citation (quote marks excluded)."""


@dataclass(frozen=True, slots=True)
class Citation:
    """One cited article (or 款/项 of it), with where it stands in the answer.

    `law_as_written` is None for implicit citations (本法…, continuations, later list
    members); `law` is the canonical name where the lexicon knows it, else the written or
    inherited name, None when nothing before it names a law.
    """

    surface: str
    start: int
    end: int
    law_as_written: str | None
    law: str | None
    implicit: bool
    article: int
    article_suffix: str | None = None
    paragraph: int | None = None
    item: int | None = None
    range: bool = False
    version_hint: str | None = None
    quote: Quote | None = None
    claim: Span | None = None

    def to_json(self) -> dict[str, Any]:
        """The issue's JSON fields, plus range, version_hint and claim."""
        return {
            "surface": self.surface,
            "start": self.start,
            "end": self.end,
            "law_as_written": self.law_as_written,
            "law": self.law,
            "implicit": self.implicit,
            "article": self.article,
            "article_suffix": self.article_suffix,
            "paragraph": self.paragraph,
            "item": self.item,
            "quote": self.quote.to_json() if self.quote else None,
            "range": self.range,
            "version_hint": self.version_hint,
            "claim": self.claim.to_json() if self.claim else None,
        }


# A pass makes a Citation for every citation, and a Span or Quote for every quote and claim.
# The Python makers fill an instance of a filler (`textnorm.slotted.filler`) by plain stores and
# give it the dataclass as its __class__; where extractor/_slotted.c is built, a compiled maker
# stores the slots by their offsets instead (no frame, no bytecode; the same objects).
SpanType = TypeVar("SpanType", bound=Span)
_CitationFiller = filler(Citation)
_SpanFiller = filler(Span)  # Quote adds no field: a Span filler becomes a Quote as well


def python_new_citation(
    surface: str,
    start: int,
    end: int,
    law_as_written: str | None,
    law: str | None,
    implicit: bool,
    article: int,
    article_suffix: str | None,
    paragraph: int | None,
    item: int | None,
    range: bool,
    version_hint: str | None,
    quote: Quote | None,
    claim: Span | None,
    /,
) -> Citation:
    """Citation(...) with every field given, in the order of the fields (by position: the
    compiled maker takes no keyword)."""
    made = _CitationFiller()
    made.surface = surface
    made.start = start
    made.end = end
    made.law_as_written = law_as_written
    made.law = law
    made.implicit = implicit
    made.article = article
    made.article_suffix = article_suffix
    made.paragraph = paragraph
    made.item = item
    made.range = range
    made.version_hint = version_hint
    made.quote = quote
    made.claim = claim
    made.__class__ = Citation
    citation: Citation = made
    return citation


def python_new_span(cls: type[SpanType], text: str, start: int, end: int, /) -> SpanType:
    """cls(text, start, end), cls a Span or a Quote."""
    made = _SpanFiller()
    made.text = text
    made.start = start
    made.end = end
    made.__class__ = cls
    span: SpanType = made
    return span


try:  # the compiled makers (extractor/_slotted.c, built by setup.py where it can be)
    from extractor import _slotted
except ImportError:  # pragma: no cover - a build without a C compiler: the fillers
    _slotted = None  # type: ignore[assignment]


def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(field.name for field in fields(cls))


new_citation = python_new_citation
new_span = python_new_span
if _slotted is not None:  # the same objects, made in one call
    new_citation = _slotted.Maker(Citation, _field_names(Citation))
    new_span = _slotted.Maker(Span, _field_names(Span), class_first=True)


# --- what the grammar yields for a span's law part and run (offsets relative to the part) ---


@dataclass(frozen=True, slots=True)
class LawMention:
    """The law part of a span: 《title》, a bare name, “name” or 本法/该法 …"""

    kind: LawKind
    text: str  # as written, without 《》 or “”; the word itself for ref_word
    start: int
    end: int
    version_hint: str | None = None


@dataclass(frozen=True, slots=True)
class Reference:
    """One article/款/项 reference; `article` None for a 款/项 that continues a list."""

    start: int
    end: int
    article: int | None
    article_suffix: str | None = None
    paragraph: int | None = None
    item: int | None = None
    range: bool = False


@dataclass(frozen=True, slots=True)
class Run:
    """A parsed run of references, in order; `end` is where the last one ends."""

    references: tuple[Reference, ...]
    end: int


# The grammar's plain path (parts built without Lark) makes these for every part it reads,
# `resolve` a Reference for a 款/项 alone; made like citations (every field, by position).
_LawMentionFiller = filler(LawMention)
_ReferenceFiller = filler(Reference)
_RunFiller = filler(Run)


def python_new_law_mention(
    kind: LawKind, text: str, start: int, end: int, version_hint: str | None, /
) -> LawMention:
    """LawMention(kind, text, start, end, version_hint)."""
    made = _LawMentionFiller()
    made.kind = kind
    made.text = text
    made.start = start
    made.end = end
    made.version_hint = version_hint
    made.__class__ = LawMention
    mention: LawMention = made
    return mention


def python_new_reference(
    start: int,
    end: int,
    article: int | None,
    suffix: str | None,
    paragraph: int | None,
    item: int | None,
    range: bool,
    /,
) -> Reference:
    """Reference(start, end, article, suffix, paragraph, item, range)."""
    made = _ReferenceFiller()
    made.start = start
    made.end = end
    made.article = article
    made.article_suffix = suffix
    made.paragraph = paragraph
    made.item = item
    made.range = range
    made.__class__ = Reference
    reference: Reference = made
    return reference


def python_new_run(references: tuple[Reference, ...], end: int, /) -> Run:
    """Run(references, end)."""
    made = _RunFiller()
    made.references = references
    made.end = end
    made.__class__ = Run
    run: Run = made
    return run


new_law_mention = python_new_law_mention
new_reference = python_new_reference
new_run = python_new_run
if _slotted is not None:
    new_law_mention = _slotted.Maker(LawMention, _field_names(LawMention))
    new_reference = _slotted.Maker(Reference, _field_names(Reference))
    new_run = _slotted.Maker(Run, _field_names(Run))
