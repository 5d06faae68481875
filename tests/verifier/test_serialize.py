"""`lexgate check --jsonl`'s lines written as text are what json.dumps writes of the verdicts'
JSON: over real answers (both databases, with and without text) and generated values."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor.models import Citation
from legaldb import StatuteRepository
from tests.conftest import SHARED_DIR
from tests.strategies import json_citations as citations
from tests.strategies import json_counts as counts
from tests.strategies import json_maybe_texts as maybe_texts
from tests.strategies import json_texts as texts
from verifier import check, serialize
from verifier.models import (
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
from verifier.serialize import result_line, summary_to_json, verdict_text, verdict_to_json


def dumped(item_id: Any, result: CheckResult, with_text: bool) -> str:
    """The line as json.dumps writes it from the verdicts' JSON."""
    line = {
        "id": item_id,
        "as_of": result.as_of,
        "citations": [verdict_to_json(v, with_text=with_text) for v in result.verdicts],
        "summary": summary_to_json(result.summary),
    }
    return json.dumps(line, ensure_ascii=False)


def _answers(every: int) -> list[dict[str, Any]]:
    """Every `every`-th answer of flzx_dev_answers (all its models' answers among them)."""
    path = SHARED_DIR / "eval" / "flzx_dev_answers.jsonl"
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()[::every]]


@pytest.mark.parametrize("as_of", [date(2023, 8, 1), date(2026, 12, 1)], ids=str)
def test_lines_of_real_answers_are_their_json_dumped(
    statute_repository: StatuteRepository, as_of: date
) -> None:
    results = [
        (item["id"], check(item["answer"], statute_repository, as_of)) for item in _answers(20)
    ]
    assert sum(len(result.verdicts) for _, result in results) > 400
    for with_text in (False, True):
        for item_id, result in results:
            expected = dumped(item_id, result, with_text)
            assert result_line(item_id, result, with_text=with_text) == expected
            assert serialize.python_result_line(item_id, result, with_text=with_text) == expected


def test_lines_are_the_same_when_the_kept_parts_are_dropped_all_the_time(
    statute_repository: StatuteRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(serialize, "FRAGMENTS_KEPT", 1)
    for item in _answers(100):
        result = check(item["answer"], statute_repository, date(2026, 12, 1))
        assert result_line(item["id"], result, with_text=False) == dumped(item["id"], result, False)


# --- Generated values: every str, int and float json may meet ---

scores = st.floats(allow_nan=False) | st.integers(min_value=-3, max_value=3)
surfaces = st.tuples(texts)
found_in = st.builds(
    FoundIn, texts, texts, maybe_texts, scores, st.sampled_from(["same_law", "elsewhere"])
)
supports = st.builds(
    Support,
    verdict=st.sampled_from(["supports", "partly", "unsupported", "unknown"]),
    evidence=texts,
    score=st.none() | scores,
    coverage=st.none() | scores,
    best_other=st.none() | scores,
    differences=st.lists(st.builds(Difference, st.just("number"), texts, texts), max_size=2).map(
        tuple
    ),
    found_in=st.lists(found_in, max_size=2).map(tuple),
)
verdicts = st.builds(
    Verdict,
    citation=citations,
    status=st.sampled_from(["verified", "deprecated", "notYetEffective", "unverified"]),
    reason=st.sampled_from(["in_force", "repealed", "superseded"]),
    facts=st.builds(Facts, law=maybe_texts, article_count=st.none() | counts),
    resolved=st.none() | st.builds(Resolved, texts, *[maybe_texts] * 5),
    quote_check=st.builds(
        QuoteCheck,
        st.sampled_from(["match", "partial", "mismatch", "none"]),
        st.none() | scores,
        st.lists(found_in, max_size=3).map(tuple),
    ),
    number_conflicts=st.lists(
        st.builds(NumberConflict, st.just("amount"), scores, st.tuples(scores), texts, surfaces),
        max_size=1,
    ).map(tuple),
    support=supports,
)


@given(verdict=verdicts, with_text=st.booleans())
def test_a_verdict_is_written_as_json_dumps_writes_it(verdict: Verdict, with_text: bool) -> None:
    """For any verdict, verdict_text is json.dumps of verdict_to_json (its parts kept or not)."""
    expected = json.dumps(verdict_to_json(verdict, with_text=with_text), ensure_ascii=False)
    assert verdict_text(verdict, with_text=with_text) == expected
    assert verdict_text(verdict, with_text=with_text) == expected  # the kept parts again


@given(
    verdict=verdicts,
    item_id=st.none() | texts | counts,
    summary=st.builds(Summary, counts, counts, counts, counts, counts),
)
def test_a_line_is_written_as_json_dumps_writes_it(
    verdict: Verdict, item_id: Any, summary: Summary
) -> None:
    """For any verdicts, summary and id, result_line is json.dumps of the line's JSON."""
    result = CheckResult("2026-12-01", (verdict, verdict), summary)
    assert result_line(item_id, result, with_text=False) == dumped(item_id, result, False)


@pytest.mark.parametrize("coverage", [0, 0.0, 1, 1.0], ids=repr)
def test_equal_supports_of_other_number_types_keep_their_own_json(coverage: float) -> None:
    """Support(coverage=0) equals Support(coverage=0.0), and json writes 0 and 0.0."""
    base = Verdict(
        Citation("民法典第一条", 0, 6, "民法典", "民法典", False, 1),
        "verified",
        "in_force",
        Facts(),
        None,
        QuoteCheck("none"),
        support=Support("partly", "…", 0.5, coverage, 0.25),
    )
    for verdict in (base, base):
        assert verdict_text(verdict, with_text=False) == json.dumps(
            verdict_to_json(verdict, with_text=False), ensure_ascii=False
        )
