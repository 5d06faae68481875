"""Pathological input stays linear: each 1 MB input extracts well within a generous bound.

The bound guards against catastrophic backtracking (which would take minutes, not
seconds); the speed itself is measured in benchmarks/extractor_bench.py. The bound is on this
process's CPU time, not wall time, so that a loaded machine does not fail it.
"""

from __future__ import annotations

import time

import pytest

from extractor import Lexicon, extract

MB = 1_000_000
BOUND_SECONDS = 5.0  # CPU seconds; the slowest (ranges-unfinished) takes about 2.7 s

ADVERSARIAL = [
    ("open-titles", "《" * MB),
    ("ordinals", "第" * MB),
    ("ordinal-numerals", "第一" * (MB // 2)),
    ("unclosed-title", "《" + "劳动合同法规定用人单位应当" * (MB // 13)),
    ("close-titles", "》" * MB),
    ("open-quotes", "“" * MB),
    ("title-then-ordinal", "《劳动法》第" * (MB // 6)),
    ("separators", "第一条、" * (MB // 4)),
    ("ranges-unfinished", "第一条至" * (MB // 4)),
    ("ref-words", "本法" * (MB // 2)),
    ("html-tags", "<span>" * (MB // 6)),
    ("ascii-quotes", '"' * MB),
    ("blank-lines-then-a-run", "\n" * MB + "第一条"),
    ("cut-title-then-lines", "劳动法》\n" + "劳动法\n" * (MB // 4)),
]


@pytest.mark.parametrize("text", [a[1] for a in ADVERSARIAL], ids=[a[0] for a in ADVERSARIAL])
def test_linear_on_adversarial_input(text: str, lexicon: Lexicon) -> None:
    """1 MB of pathological text extracts in (far) less than the bound, without error."""
    started = time.process_time()
    citations = extract(text, lexicon)
    elapsed = time.process_time() - started
    assert elapsed < BOUND_SECONDS, f"{elapsed:.2f} s"
    assert all(text[c.start : c.end] == c.surface for c in citations)


def test_many_real_citations_in_one_text(lexicon: Lexicon) -> None:
    """A long answer of back-to-back citations yields every one of them."""
    text = "《劳动法》第一条规定。" * 20_000
    started = time.process_time()
    citations = extract(text, lexicon)
    assert time.process_time() - started < BOUND_SECONDS
    assert len(citations) == 20_000
    assert {c.article for c in citations} == {1}
