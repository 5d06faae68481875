"""The compiled line writer (verifier/_jsonline.c) writes what the Python writer writes
(`serialize.python_result_line`), as text and as UTF-8 with its newline: over real answers (both
databases, two dates, with and without text, its kept texts dropped or not) and over generated
verdicts, strings, floats and shapes it hands back to Python."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from datetime import date
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from extractor.models import Citation
from legaldb import StatuteRepository
from tests.conftest import SHARED_DIR
from tests.strategies import json_citations as citations
from tests.strategies import json_counts as counts
from tests.strategies import json_maybe_texts as maybe_texts
from tests.strategies import json_texts as texts
from tests.verifier.test_serialize import dumped, found_in, scores, verdicts
from verifier import check, serialize
from verifier.models import (
    ArticleRef,
    CheckResult,
    Difference,
    Facts,
    FoundIn,
    NumberConflict,
    QuoteCheck,
    Resolved,
    Summary,
    Support,
    Verdict,
)

_jsonline = pytest.importorskip("verifier._jsonline")


def writer(kept_limit: int = serialize.FRAGMENTS_KEPT) -> Any:
    """A compiled writer with nothing kept yet, wired to serialize's Python parts."""
    return _jsonline.Writer(
        encode=serialize._encode,
        kept_limit=kept_limit,
        facts_writers=serialize._FACTS_WRITERS,
        support_writer=serialize._support_text,
        status_memo=serialize._STATUS_TEXT,
        status_writer=serialize._status_members,
        quote_check_writer=serialize._quote_check_text,
        conflicts_writer=serialize._conflicts_text,
        summary_writer=serialize._summary_text,
    )


def assert_same(compiled: Any, item_id: Any, result: CheckResult, with_text: bool) -> None:
    """Both of the compiled writer's lines are the Python writer's line (None only where UTF-8
    cannot encode that line)."""
    expected = serialize.python_result_line(item_id, result, with_text=with_text)
    line = compiled.line(item_id, result, with_text)
    encoded = compiled.line_utf8(item_id, result, with_text)
    try:
        expected_bytes = f"{expected}\n".encode()
    except UnicodeEncodeError:
        assert line is None and encoded is None
        return
    assert line == expected
    assert encoded == expected_bytes


def _answers(every: int) -> list[dict[str, Any]]:
    path = SHARED_DIR / "eval" / "flzx_dev_answers.jsonl"
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()[::every]]


@pytest.mark.parametrize("as_of", [date(2019, 6, 1), date(2026, 12, 1)], ids=str)
@pytest.mark.parametrize("kept_limit", [1, 8192], ids=["kept-1", "kept-8192"])
def test_real_answers_are_written_as_the_python_writer_writes_them(
    statute_repository: StatuteRepository, as_of: date, kept_limit: int
) -> None:
    results = [
        (item["id"], check(item["answer"], statute_repository, as_of)) for item in _answers(7)
    ]
    verdicts_written = [v for _, result in results for v in result.verdicts]
    assert len(verdicts_written) > 1000
    # the shapes that matter are among them: successors (as of 2026), found_in, differences
    assert any(v.facts.successors for v in verdicts_written) == (as_of.year == 2026)
    assert any(v.support.found_in or v.support.differences for v in verdicts_written)
    assert any(v.quote_check.found_in for v in verdicts_written)
    compiled = writer(kept_limit)
    for with_text in (False, True):
        for item_id, result in results:
            assert compiled.line(item_id, result, with_text) is not None
            assert_same(compiled, item_id, result, with_text)
    assert all(count <= kept_limit for count in compiled.kept_count())
    if kept_limit == 1:
        assert max(compiled.kept_count()) == 1


def test_the_module_writer_is_compiled_and_used() -> None:
    """result_line and result_line_utf8 go through the compiled writer where it is built."""
    assert serialize._WRITER is not None
    verdict = Verdict(
        Citation("民法典第一条", 0, 6, "民法典", "民法典", False, 1),
        "verified",
        "in_force",
        Facts(law="民法典"),
        None,
        QuoteCheck("none"),
    )
    result = CheckResult("2026-12-01", (verdict,), Summary(1, 1, 0, 0, 0))
    before = serialize._WRITER.kept_count()
    line = serialize.result_line("a", result, with_text=False)
    assert serialize._WRITER.kept_count() != before  # kept by the compiled writer
    assert line == serialize.python_result_line("a", result, with_text=False)
    assert serialize.result_line_utf8("a", result, with_text=False) == f"{line}\n".encode()


# --- Generated values -----------------------------------------------------------------------

article_refs = st.builds(
    ArticleRef,
    law=texts,
    article=counts,
    article_suffix=maybe_texts,
    label=texts,
    version_label=maybe_texts,
    text=maybe_texts,
    kind=maybe_texts,
    similarity=st.none() | scores,
    changed=st.booleans(),
    note=maybe_texts,
)
facts = st.builds(
    Facts,
    law=maybe_texts,
    level_covered=st.none() | st.booleans(),
    article_count=st.none() | counts,
    repeal_note=maybe_texts,
    successors=st.lists(article_refs, max_size=2).map(tuple),
    corresponding=st.none() | article_refs,
    paragraph_count=st.none() | counts,
)
supports = st.builds(
    Support,
    verdict=st.sampled_from(["supports", "partly", "unsupported", "unknown"]),
    evidence=texts,
    score=st.none() | scores,
    coverage=st.none() | scores,
    best_other=st.none() | scores,
    differences=st.lists(
        st.builds(Difference, st.sampled_from(["number", "condition"]), texts, texts), max_size=2
    ).map(tuple),
    found_in=st.lists(found_in, max_size=2).map(tuple),
)
full_verdicts = st.builds(
    Verdict,
    citation=citations,
    status=st.sampled_from(["verified", "deprecated", "notYetEffective", "unverified"]),
    reason=st.sampled_from(["in_force", "repealed", "superseded", "law_not_found"]),
    facts=facts,
    resolved=st.none() | st.builds(Resolved, texts, *[maybe_texts] * 5),
    quote_check=st.builds(
        QuoteCheck,
        st.sampled_from(["match", "partial", "mismatch", "none"]),
        st.none() | scores,
        st.lists(found_in, max_size=3).map(tuple),
    ),
    number_conflicts=st.lists(
        st.builds(
            NumberConflict, st.just("amount"), scores, st.tuples(scores), texts, st.tuples(texts)
        ),
        max_size=1,
    ).map(tuple),
    support=supports,
)
ids = st.none() | texts | counts | st.floats() | st.lists(texts, max_size=2)


@given(
    chosen=st.lists(st.sampled_from(range(3)), min_size=0, max_size=4),
    pool=st.lists(full_verdicts | verdicts, min_size=3, max_size=3),
    item_id=ids,
    summary=st.builds(Summary, counts, counts, counts, counts, counts),
    with_text=st.booleans(),
)
def test_any_line_is_written_as_the_python_writer_writes_it(
    chosen: list[int], pool: list[Verdict], item_id: Any, summary: Summary, with_text: bool
) -> None:
    """For any verdicts (some the same objects again), id and summary, both lines are the
    Python writer's, and json.dumps's of the verdicts' JSON."""
    result = CheckResult("2026-12-01", tuple(pool[n] for n in chosen), summary)
    compiled = writer()
    assert_same(compiled, item_id, result, with_text)
    assert_same(compiled, item_id, result, with_text)  # the kept texts
    line = compiled.line(item_id, result, with_text)
    if line is not None and not (isinstance(item_id, float) and math.isnan(item_id)):
        assert line == dumped(item_id, result, with_text)


def _scores_line(values: list[float]) -> tuple[str | None, str]:
    places = tuple(FoundIn("法", "第一条", None, value, "same_law") for value in values)
    verdict = Verdict(
        Citation("法第一条", 0, 4, "法", "法", False, 1),
        "verified",
        "in_force",
        Facts(),
        None,
        QuoteCheck("partial", values[0] if values else None, places),
    )
    result = CheckResult("2026-12-01", (verdict,), Summary(1, 1, 0, 0, 0))
    return writer().line(None, result, False), serialize.python_result_line(None, result)


def test_scores_of_four_places_are_float_repr() -> None:
    """Every n / 10**4 around the scores' range (and far beyond it) is written as repr writes it."""
    values = [n / 10000 for n in range(-20000, 20001)]
    values += [n / 10000 for n in (10**15 - 1, 10**15, 10**15 + 1, -(10**15) + 1, 123456789)]
    values += [-0.0, 0.0, 1e-4, 1e-5, 5e-5, 1e16, 1e17, 0.1 + 0.2, 1 / 3, 2.5e-4]
    line, expected = _scores_line(values)
    assert line == expected
    for value in values:
        assert f'"score": {value!r}' in line


@given(st.lists(st.floats(), min_size=1, max_size=20))
@example([math.nan, math.inf, -math.inf, -0.0, 5e-324, 1.7976931348623157e308])
def test_any_float_is_written_as_json_writes_it(values: list[float]) -> None:
    """For any floats, the compiled writer writes what json does (float.__repr__, NaN,
    Infinity)."""
    line, expected = _scores_line(values)
    assert line == expected


CHARACTERS = [chr(c) for c in range(0x00, 0x21)] + [
    '"',
    "\\",
    "/",
    "\x7f",
    "\x80",
    "\xa0",
    "\xff",
    "\u0100",
    "\u07ff",
    "\u0800",
    "\u2028",
    "\ud7ff",
    "\ue000",
    "\ufeff",
    "\uffff",
    "\U00010000",
    "\U0001f600",
    "\U0010ffff",
    "中",
]


@pytest.mark.parametrize("character", CHARACTERS, ids=lambda c: f"U+{ord(c):04X}")
@pytest.mark.parametrize("around", ["", "a", "中", "\U0001f600", "é"], ids=repr)
def test_each_character_is_written_as_encode_basestring_writes_it(
    character: str, around: str
) -> None:
    text = f"{around}{character}{around}{character}"
    citation = Citation(text, 0, 1, text, None, False, 1, text)
    verdict = Verdict(
        citation,
        "unverified",
        "law_not_found",
        Facts(law=text),
        None,
        QuoteCheck("none"),
        support=Support("partly", text),
    )
    result = CheckResult("2026-12-01", (verdict,), Summary(1, 0, 0, 0, 1))
    compiled = writer()
    assert compiled.line(text, result, True) is not None
    assert_same(compiled, text, result, True)


@pytest.mark.parametrize("surrogate", ["\ud800", "\udbff", "\udc00", "\udfff", "\udcff"])
@pytest.mark.parametrize("where", ["id", "surface", "facts", "support"])
def test_a_line_utf8_cannot_encode_is_left_to_python(surrogate: str, where: str) -> None:
    text = f"中{surrogate}"
    surface = text if where == "surface" else "法第一条"
    verdict = Verdict(
        Citation(surface, 0, 4, "法", "法", False, 1),
        "verified",
        "in_force",
        Facts(law=text if where == "facts" else "法"),
        None,
        QuoteCheck("none"),
        support=Support("partly", text if where == "support" else "…"),
    )
    result = CheckResult("2026-12-01", (verdict,), Summary(1, 1, 0, 0, 0))
    item_id = text if where == "id" else 1
    compiled = writer()
    assert compiled.line(item_id, result, False) is None
    assert compiled.line_utf8(item_id, result, False) is None
    expected = serialize.python_result_line(item_id, result, with_text=False)
    assert serialize.result_line(item_id, result, with_text=False) == expected
    assert serialize.result_line_utf8(
        item_id, result, with_text=False, errors="surrogatepass"
    ) == f"{expected}\n".encode("utf-8", "surrogatepass")
    with pytest.raises(UnicodeEncodeError):
        serialize.result_line_utf8(item_id, result, with_text=False)


class Text(str):
    """A str subclass: json writes it as a str, through its encoder."""


@dataclass(frozen=True)
class Loose:
    """A dataclass without slots: its fields read by getattr."""

    law: str
    note: object = None


@pytest.mark.parametrize(
    "shape",
    [
        "str subclass",
        "int subclass",
        "found_in list",
        "conflicts",
        "summary of bools",
        "namespace citation",
        "dict in facts",
        "loose successor",
        "text successor",
        "list differences",
        "verdicts list",
    ],
)
@pytest.mark.parametrize("with_text", [False, True])
def test_other_shapes_are_written_as_the_python_writer_writes_them(
    shape: str, with_text: bool
) -> None:
    """What the compiled writer reads by getattr, or hands to the Python writer's parts."""
    citation: Any = Citation("法第一条", 0, 4, "法", "法", False, 1, claim=None)
    fact_values: dict[str, Any] = {"law": "法"}
    quote_check = QuoteCheck("partial", 0.5, (FoundIn("法", "第二条", None, 0.9, "same_law"),))
    conflicts: tuple[Any, ...] = ()
    summary: Any = Summary(1, 1, 0, 0, 0)
    support = Support("partly", "…", 0.5, 0.0, 0.25, (Difference("number", "三", "五"),))
    if shape == "str subclass":
        citation = Citation(Text("法第一条"), 0, 4, Text("法"), "法", False, 1)
    elif shape == "int subclass":
        citation = Citation("法第一条", True, 4, "法", "法", 1, False)  # type: ignore[arg-type]
    elif shape == "found_in list":
        quote_check = QuoteCheck("partial", 0.5, list(quote_check.found_in))  # type: ignore[arg-type]
    elif shape == "conflicts":
        conflicts = (NumberConflict("amount", 3.0, (5.0,), "三元", ("五元",)),)
    elif shape == "summary of bools":
        summary = Summary(True, 1, False, 0, 0)  # type: ignore[arg-type]
    elif shape == "namespace citation":
        citation = SimpleNamespace(**{name: getattr(citation, name) for name in Citation.__slots__})
        citation.quote = SimpleNamespace(text="引文", start=1, end=3)
    elif shape == "dict in facts":
        fact_values["repeal_note"] = {"a": [1, 2]}
    elif shape == "loose successor":
        fact_values["successors"] = (Loose("法", note=("a",)), Loose("法"))
    elif shape == "text successor":
        fact_values["successors"] = (ArticleRef("法", 2, None, "第二条", text="文"),)
        fact_values["corresponding"] = ArticleRef("法", 3, None, "第三条", text="条文")
    elif shape == "list differences":
        support = Support("partly", "…", 0.5, 0.0, 0.25, [Difference("number", "三", "五")])  # type: ignore[arg-type]
    verdict = Verdict(
        citation,
        "verified",
        "in_force",
        Facts(**fact_values),
        None,
        quote_check,
        conflicts,
        support,
    )
    verdicts: Any = (verdict, verdict)
    if shape == "verdicts list":
        verdicts = [verdict]
    result = CheckResult("2026-12-01", verdicts, summary)
    compiled = writer()
    assert compiled.line("id", result, with_text) is not None
    assert_same(compiled, "id", result, with_text)
    assert_same(compiled, "id", result, with_text)


@pytest.mark.parametrize("coverage", [0, 0.0, 1, 1.0, False], ids=repr)
def test_equal_supports_of_other_number_types_keep_their_own_text(coverage: float) -> None:
    """Support(coverage=0) equals Support(coverage=0.0): each is kept for itself."""
    base = Verdict(
        Citation("民法典第一条", 0, 6, "民法典", "民法典", False, 1),
        "verified",
        "in_force",
        Facts(),
        None,
        QuoteCheck("none"),
        support=Support("partly", "…", 0.5, 0, 0.25),
    )
    other = replace(base, support=Support("partly", "…", 0.5, coverage, 0.25))
    compiled = writer()
    for verdict in (base, other, base, other):
        result = CheckResult("2026-12-01", (verdict,), Summary(1, 1, 0, 0, 0))
        assert_same(compiled, None, result, False)


def test_the_kept_texts_are_dropped_when_full_and_written_again() -> None:
    """With room for two texts of a kind, a third drops them all; what is written is the same."""
    supports_made = [Support("partly", str(n), n / 4, 0.0, 0.5) for n in range(5)]
    compiled = writer(kept_limit=2)
    counts_seen = []
    for support in supports_made * 2:
        verdict = Verdict(
            Citation("法第一条", 0, 4, "法", "法", False, 1),
            "verified",
            "in_force",
            Facts(),
            None,
            QuoteCheck("none"),
            support=support,
        )
        assert_same(
            compiled, 1, CheckResult("2026-12-01", (verdict,), Summary(1, 1, 0, 0, 0)), False
        )
        counts_seen.append(compiled.kept_count()[4])
    assert max(counts_seen) == 2
    assert min(counts_seen) == 1


def test_hundreds_of_kept_texts_are_each_their_own_objects() -> None:
    """Hundreds of parts kept at once (the table grown, its slots shared): each written as
    its own, the first time and from its kept text."""
    made = [
        (
            Support("partly", f"证据{n}", n / 8, 0.0, 0.5),
            Resolved(f"法{n}", None, None, None, f"第{n}条", "文"),
        )
        for n in range(600)
    ]
    compiled = writer()
    for support, resolved in made * 2:
        verdict = Verdict(
            Citation("法第一条", 0, 4, "法", "法", False, 1),
            "verified",
            "in_force",
            Facts(),
            resolved,
            QuoteCheck("none"),
            support=support,
        )
        result = CheckResult("2026-12-01", (verdict,), Summary(1, 1, 0, 0, 0))
        assert_same(compiled, 1, result, False)
    assert compiled.kept_count() == (1200, 0, 600, 0, 600)  # a Facts() made for each


def test_without_the_compiled_writer_python_writes_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A build without verifier/_jsonline.c: result_line and result_line_utf8 take the Python
    writer, and give what the compiled one gives."""
    verdict = Verdict(
        Citation("民法典第一条", 0, 6, "民法典", "民法典", False, 1),
        "deprecated",
        "repealed",
        Facts(law="合同法", successors=(ArticleRef("民法典", 1, None, "第一条", text="文"),)),
        Resolved("合同法", "1999年", "1999-10-01", "2021-01-01", "第一条", "文"),
        QuoteCheck("partial", 0.75),
        support=Support("supports", "文", 1.0, 1.0, 0.0),
    )
    result = CheckResult("2026-12-01", (verdict,), Summary(1, 0, 1, 0, 0))
    compiled = [serialize.result_line("x", result, with_text=t) for t in (False, True)]
    monkeypatch.setattr(serialize, "_WRITER", None)
    for with_text, line in zip((False, True), compiled, strict=True):
        assert serialize.result_line("x", result, with_text=with_text) == line
        assert serialize.result_line_utf8("x", result, with_text=with_text) == f"{line}\n".encode()
