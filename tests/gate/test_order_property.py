"""The decision depends on the set of cited provisions, never on their order or repeats."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gate import Policy, Turn, assess
from gate.models import GateResult
from tests.gate.builders import checked, citation, good, invented, mismatch, outside, verdict
from tests.strategies import gate_citation_specs
from verifier.models import Facts, NumberConflict, Verdict

ANSWER = "根据法律规定，当事人应当承担责任。" * 30


def build(kind: str, article: int, start: int) -> Verdict:
    """The verdict of one (kind, article) spec, placed at start."""
    if kind == "verified":
        return good(article, start)
    if kind == "article_not_found":
        return invented(1300 + article, start)
    if kind == "law_not_found_covered":
        return outside(f"中华人民共和国第{article}号法", 1, start, covered=True)
    if kind == "law_not_found_partial":
        return outside(f"某省第{article}号条例", 1, start)
    if kind == "repealed":
        return verdict(
            citation("中华人民共和国合同法", article, start=start),
            "repealed",
            facts=Facts(law="中华人民共和国合同法", repealed_on="2021-01-01"),
        )
    if kind == "not_yet_effective":
        return verdict(
            citation("中华人民共和国公司法", article, start=start),
            "not_yet_effective",
            facts=Facts(law="中华人民共和国公司法", effective_from="2024-07-01"),
        )
    if kind == "quote_mismatch":
        return mismatch(article, start)
    conflict = NumberConflict("multiple", 3.0, (2.0,), "三倍", ("二倍",))
    return verdict(citation("中华人民共和国劳动法", article, start=start), conflicts=(conflict,))


def essentials(result: GateResult) -> tuple[object, ...]:
    """Everything of a result except the count of citation occurrences."""
    return (
        result.decision,
        result.verifiable_rate,
        result.counts.model_copy(update={"citations": 0}),
        result.failures,
        result.facts,
        result.rerun_request,
        result.standards,
    )


@given(specs=gate_citation_specs, data=st.data(), strict=st.booleans())
def test_decision_ignores_order_and_repeats(
    specs: list[tuple[str, int]], data: st.DataObject, strict: bool
) -> None:
    """Shuffling the citations and citing some of them again changes no part of the decision."""
    verdicts = [build(kind, article, 10 * index) for index, (kind, article) in enumerate(specs)]
    shuffled = data.draw(st.permutations(verdicts))
    again_cited = data.draw(st.lists(st.sampled_from(specs), max_size=6)) if specs else []
    repeats = [  # cited again later in the answer
        build(kind, article, 10 * (len(specs) + index))
        for index, (kind, article) in enumerate(again_cited)
    ]
    policy = Policy(strict=strict)
    once = assess(checked(*verdicts), ANSWER, turn=Turn(question="问？"), policy=policy)
    again = assess(checked(*shuffled, *repeats), ANSWER, turn=Turn(question="问？"), policy=policy)
    assert essentials(again) == essentials(once)
