"""The decision rule at its edges, on verdicts built by hand (the pure core of the gate)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import partial

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from gate import Policy, Turn, assess
from gate.models import GateResult
from tests.gate.builders import (
    checked,
    citation,
    good,
    invented,
    mismatch,
    outside,
    partly,
    repealed,
    verdict,
)
from verifier.models import Verdict

ANSWER = "依法应当赔偿。" * 40


def spread(*makers: Callable[[int], Verdict]) -> list[Verdict]:
    """Verdicts placed 20 characters apart in the answer."""
    return [make(20 * index) for index, make in enumerate(makers)]


def goods(count: int, first: int = 1) -> list[Callable[[int], Verdict]]:
    """Makers of verified citations of distinct articles."""
    return [partial(good, n) for n in range(first, first + count)]


def outsides(count: int) -> list[Callable[[int], Verdict]]:
    """Makers of citations of distinct local regulations outside the data."""
    return [partial(outside, f"某某省第{n}条例", 3) for n in range(count)]


CASES = [
    ("exactly_0.70_passes", [*goods(7), *[lambda at, n=n: invented(2000 + n, at) for n in range(3)]],
     Policy(), "pass", 0.7),
    ("0.69_boundary_only", [*goods(9), *outsides(4)], Policy(), "pass_boundary", 9 / 13),
    ("0.69_one_correctable", [*goods(9), *outsides(3), lambda at: invented(1289, at)], Policy(),
     "rerun", 9 / 13),
    ("date_unknown_is_boundary", [*goods(1), lambda at: verdict(
        citation("中华人民共和国某法", 3, start=at), "effective_date_unknown")], Policy(),
     "pass_boundary", 0.5),
    ("covered_law_missing_is_correctable", [*goods(2), lambda at: outside(
        "中华人民共和国户籍法", 3, at, covered=True)], Policy(), "rerun", 2 / 3),
    ("repealed_only", [lambda at: repealed(at)], Policy(), "rerun", 0.0),
    ("strict_off_hides_one_invented", [*goods(9), lambda at: invented(1289, at)], Policy(),
     "pass", 0.9),
    ("strict_on_reruns_above_0.70", [*goods(9), lambda at: invented(1289, at)],
     Policy(strict=True), "rerun", 0.9),
    ("strict_on_law_not_in_covered_level", [*goods(9), lambda at: outside(
        "中华人民共和国户籍法", 3, at, covered=True)], Policy(strict=True), "rerun", 0.9),
    ("strict_ignores_repealed_above_0.70", [*goods(9), lambda at: repealed(at)],
     Policy(strict=True), "pass", 0.9),
    ("unsupported_content_is_not_verifiable", [lambda at: mismatch(577, at)], Policy(), "rerun",
     0.0),
    ("one_unsupported_among_three_good", [*goods(3), lambda at: mismatch(577, at)], Policy(),
     "pass", 0.75),
    ("one_unsupported_among_two_good", [*goods(2), lambda at: mismatch(577, at)], Policy(),
     "rerun", 2 / 3),
    ("partly_warns_by_default", [lambda at: partly(577, at)], Policy(), "pass", 1.0),
    ("partly_reruns_when_the_policy_says", [lambda at: partly(577, at)], Policy(partly="rerun"),
     "rerun", 0.0),
    ("repeats_count_once_below", [*goods(2), *[lambda at: invented(1289, at)] * 5], Policy(),
     "rerun", 2 / 3),
    ("repeats_count_once_above", [*goods(3), *[lambda at: invented(1289, at)] * 5], Policy(),
     "pass", 0.75),
    ("no_citations", [], Policy(), "no_citations", None),
    ("lower_pass_rate", [*goods(1), lambda at: invented(1289, at)], Policy(pass_rate=0.5),
     "pass", 0.5),
]  # fmt: skip


@pytest.mark.parametrize(
    ("makers", "policy", "decision", "rate"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_decision_at_the_edges(
    makers: list[Callable[[int], Verdict]], policy: Policy, decision: str, rate: float | None
) -> None:
    result = assess(checked(*spread(*makers)), ANSWER, turn=Turn(question="问题？"), policy=policy)
    assert result.decision == decision
    if rate is None:
        assert result.verifiable_rate is None
    else:
        assert result.verifiable_rate == pytest.approx(rate)
    assert (result.rerun_request is not None) == (decision in ("rerun", "no_citations"))


@pytest.mark.parametrize(
    ("pass_rate", "verified", "provisions", "passes"),
    [
        (0.70, 7, 10, True),
        (0.70, 69, 100, False),
        (0.70, 70, 100, True),
        (0.35, 7, 20, True),  # 0.35 * 20 is 7.000000000000001 in floating point
        (0.70, 0, 0, False),
        (1.0, 3, 3, True),
        (0.0, 0, 3, True),
    ],
    ids=["7/10", "69/100", "70/100", "7/20_at_0.35", "nothing_cited", "all", "zero_rate"],
)
def test_pass_rate_is_compared_exactly(
    pass_rate: float, verified: int, provisions: int, passes: bool
) -> None:
    assert Policy(pass_rate=pass_rate).passes(verified, provisions) is passes


@given(
    pass_rate=st.floats(min_value=0.0, max_value=1.0),
    verified=st.integers(min_value=0, max_value=500),
    provisions=st.integers(min_value=1, max_value=500),
)
def test_pass_rate_is_the_decimal_fraction_it_is_written_as(
    pass_rate: float, verified: int, provisions: int
) -> None:
    """passes() is verified / provisions >= the rate's shortest decimal, as exact fractions."""
    expected = Fraction(verified, provisions) >= Fraction(str(pass_rate))
    assert Policy(pass_rate=pass_rate).passes(verified, provisions) is expected


def test_counts_are_per_distinct_provision_in_the_worst_tier() -> None:
    result = assess(
        checked(
            good(577, 0),
            good(577, 30),
            verdict(citation("中华人民共和国民法典", 577, start=60, version_hint="2018年"),
                    "superseded"),
            repealed(90),
            invented(1289, 120),
            invented(1289, 150),
        ),
        ANSWER,
    )  # fmt: skip
    counts = result.counts
    assert (counts.citations, counts.provisions) == (6, 3)
    assert (counts.verified, counts.deprecated, counts.unverified) == (0, 2, 1)
    assert [f.start for f in result.failures if f.signal == "article_not_found"] == [120]


@pytest.mark.parametrize(
    ("reruns", "requested"), [(1, True), (0, False)], ids=["default_one_rerun", "no_rerun"]
)
def test_no_citations_rerun_asks_for_the_legal_basis(reruns: int, requested: bool) -> None:
    answer = "您可以要求对方赔偿损失。\n对方应当承担违约责任。"
    result = assess(checked(), answer, turn=Turn(question="对方违约怎么办？"),
                    policy=Policy(no_citations_reruns=reruns))  # fmt: skip
    assert result.decision == "no_citations"
    assert [f.kind for f in result.facts] == ["no_citations"]
    assert "“您可以要求对方赔偿损失。”" in result.facts[0].text
    assert "“对方应当承担违约责任。”" in result.facts[0].text
    assert (result.rerun_request is not None) is requested
    if result.rerun_request is not None:
        instruction = result.rerun_request.messages[-1].content
        assert "法律依据" in instruction or "法律条文" in instruction
        assert result.rerun_request.attempt == 2


def test_boundary_failures_give_no_facts() -> None:
    result = assess(checked(*spread(*goods(1), *outsides(2))), ANSWER)
    assert result.decision == "pass_boundary"
    assert result.facts == ()
    assert {f.signal for f in result.failures} == {"law_outside_coverage"}
    assert not any(f.correctable for f in result.failures)


def test_facts_are_capped_by_the_policy() -> None:
    makers = [lambda at, n=n: invented(1300 + n, at) for n in range(8)]
    result = assess(checked(*spread(*makers)), ANSWER, policy=Policy(max_facts=3))
    assert len(result.failures) == 8
    assert len(result.facts) == 3


@pytest.mark.parametrize(
    "bad",
    [
        {"pass_rate": 1.5},
        {"pass_rate": -0.1},
        {"max_attempts": 0},
        {"tail_fraction": 1.0},
        {"conclusion_patterns": ("(",)},
        {"on_exhausted": "drop"},
        {"unknown_field": 1},
    ],
    ids=["rate_above_1", "negative_rate", "no_attempts", "tail_all", "bad_regex", "bad_choice",
         "unknown"],
)  # fmt: skip
def test_policy_rejects_invalid_values(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Policy(**bad)  # type: ignore[arg-type]


def test_result_is_json_serialisable() -> None:
    result = assess(checked(invented(1289, 0), good(577, 30)), ANSWER, turn=Turn(question="问？"))
    again = GateResult.model_validate_json(result.model_dump_json())
    assert again == result
