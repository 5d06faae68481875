"""The compiled makers (extractor/_slotted.c) make the objects the Python fillers make (citations,
spans, the grammar's parts): the same class and fields, equal, frozen, over drawn values and
over real answers' citations."""

from __future__ import annotations

import dataclasses
import gc
import json
import sys
from dataclasses import astuple, dataclass, fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor import Lexicon, context, extract, models, quotes
from extractor.models import Citation, LawMention, Quote, Reference, Run, Span
from tests.conftest import SHARED_DIR
from tests.strategies import json_citations, json_counts, json_maybe_texts, json_texts

compiled = models._slotted
needs_compiled = pytest.mark.skipif(compiled is None, reason="built without a C compiler")
ANSWERS = SHARED_DIR / "eval" / "flzx_dev_answers.jsonl"


def _fields_of(made: object) -> list[object]:
    return [getattr(made, field.name) for field in fields(made)]  # type: ignore[arg-type]


def _same(made: object, reference: object, *, identical: bool = True) -> None:
    """`made` is what the Python maker made: its type exactly, equal field values (the very
    objects where `identical`)."""
    assert type(made) is type(reference)
    assert made == reference and hash(made) == hash(reference) and repr(made) == repr(reference)
    pairs = list(zip(_fields_of(made), _fields_of(reference), strict=True))
    assert all(type(a) is type(b) and a == b for a, b in pairs)
    assert not identical or all(a is b for a, b in pairs)


@needs_compiled
@given(json_citations)
def test_compiled_citations_are_the_fillers(citation: Citation) -> None:
    """A Citation made from any field values is the Python maker's, field by field."""
    values = [getattr(citation, field.name) for field in fields(Citation)]
    made = models.new_citation(*values)
    _same(made, models.python_new_citation(*values))
    _same(made, citation)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.article = 1  # type: ignore[misc]


@needs_compiled
@given(st.sampled_from([Span, Quote]), json_texts, json_counts, json_counts)
def test_compiled_spans_are_the_fillers(cls: type[Span], text: str, start: int, end: int) -> None:
    """A Span or a Quote made by the Span maker is the Python maker's, of that very class."""
    made = models.new_span(cls, text, start, end)
    _same(made, models.python_new_span(cls, text, start, end))
    _same(made, cls(text, start, end))


_maybe_ints = st.none() | json_counts
_references = st.builds(
    Reference, json_counts, json_counts, _maybe_ints, json_maybe_texts, _maybe_ints, _maybe_ints,
    st.booleans(),
)  # fmt: skip
_parts = st.one_of(
    st.builds(
        LawMention,
        st.sampled_from(["title", "name", "quoted", "ref_word"]),
        json_texts,
        json_counts,
        json_counts,
        json_maybe_texts,
    ),
    _references,
    st.builds(Run, st.lists(_references, max_size=3).map(tuple), json_counts),
)
_PART_MAKERS = {
    LawMention: (models.new_law_mention, models.python_new_law_mention),
    Reference: (models.new_reference, models.python_new_reference),
    Run: (models.new_run, models.python_new_run),
}


@needs_compiled
@given(_parts)
def test_compiled_parts_are_the_fillers(part: LawMention | Reference | Run) -> None:
    """A LawMention, Reference or Run made from any field values is the Python maker's."""
    values = [getattr(part, field.name) for field in fields(part)]
    new, python_new = _PART_MAKERS[type(part)]
    made = new(*values)  # type: ignore[operator]
    _same(made, python_new(*values))  # type: ignore[operator]
    _same(made, part)


@needs_compiled
def test_what_is_made_holds_its_values_and_is_left_to_reference_counting() -> None:
    """Each value is held once more while the object lives (no leak, no early free); the
    object is out of the collector's walks and freed with its last reference."""
    text = "".join(["《劳动法》", "第一条"])  # a fresh object: its count is ours alone
    held = sys.getrefcount(text)
    span = models.new_span(Quote, text, 0, 8)
    assert sys.getrefcount(text) == held + 1 and not gc.is_tracked(span)
    citation = models.new_citation(
        text, 0, 8, text, text, False, 1, None, None, None, False, None, span, span
    )
    assert sys.getrefcount(text) == held + 4 and not gc.is_tracked(citation)
    assert citation.quote is citation.claim is span
    del citation, span
    assert sys.getrefcount(text) == held


@dataclass(frozen=True, slots=True)
class _Pair:
    first: object
    second: object


@dataclass(frozen=True, slots=True)
class _Wider(Span):
    more: object = None


@dataclass(frozen=True)
class _WithDict:
    first: object


@needs_compiled
@pytest.mark.parametrize(
    ("cls", "names"),
    [
        (_Pair, ("first",)),  # a slot left out
        (_Pair, ("first", "second", "first")),  # one named twice, the count too high
        (_Pair, ("first", "first")),  # one named twice
        (_Pair, ("first", "third")),  # no such attribute
        (_Pair, ("first", "__class__")),  # not a slot
        (_WithDict, ("first",)),  # instances with a __dict__
        (int, ()),
    ],
    ids=["left-out", "too-many", "twice", "unknown", "not-a-slot", "dict", "int"],
)
def test_a_maker_needs_every_slot_once(cls: type, names: tuple[str, ...]) -> None:
    assert compiled is not None
    with pytest.raises((TypeError, AttributeError)):
        compiled.Maker(cls, names)


@needs_compiled
def test_a_maker_takes_its_fields_by_position_in_the_given_order() -> None:
    assert compiled is not None
    assert astuple(compiled.Maker(_Pair, ("second", "first"))(1, 2)) == (2, 1)
    make_pair = compiled.Maker(_Pair, ("first", "second"))
    assert make_pair(1, 2) == _Pair(1, 2)
    with pytest.raises(TypeError):
        make_pair(1)
    with pytest.raises(TypeError):
        make_pair(1, 2, 3)
    with pytest.raises(TypeError):
        make_pair(1, second=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        make_pair(1, 2, third=3)  # type: ignore[call-arg]


@needs_compiled
@pytest.mark.parametrize("cls", [Citation, _Wider, str, 1], ids=["other", "wider", "str", "int"])
def test_the_span_maker_makes_spans_and_quotes_only(cls: object) -> None:
    with pytest.raises(TypeError):
        models.new_span(cls, "劳动法", 0, 3)  # type: ignore[arg-type]


@needs_compiled
def test_real_answers_give_the_same_citations_either_way(
    lexicon: Lexicon, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over the 2,750 flzx answers, extraction with the Python makers gives the same
    citations (quotes and claims included) as with the compiled ones."""
    lines = ANSWERS.read_text(encoding="utf-8").splitlines()
    answers = [json.loads(line)["answer"] for line in lines]
    made = [extract(answer, lexicon) for answer in answers]
    monkeypatch.setattr(context, "new_citation", models.python_new_citation)
    monkeypatch.setattr(quotes, "new_span", models.python_new_span)
    filled = [extract(answer, lexicon) for answer in answers]
    assert sum(map(len, made)) > 4000
    for ours, theirs in zip(made, filled, strict=True):
        assert len(ours) == len(theirs)
        for citation, reference in zip(ours, theirs, strict=True):
            _same(citation, reference, identical=False)
            for span, span_reference in [
                (citation.quote, reference.quote),
                (citation.claim, reference.claim),
            ]:
                if span_reference is not None:
                    _same(span, span_reference, identical=False)
