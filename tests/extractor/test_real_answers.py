"""Real answers: the labelled dev set scores as the issue demands, with the database lexicon."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from extractor import Lexicon, extract
from tests.conftest import SHARED_DIR

LABELED = SHARED_DIR / "eval" / "flzx_dev_labeled.json"
SCORER = SHARED_DIR / "eval" / "score_extraction.py"


def _scorer() -> Any:
    spec = importlib.util.spec_from_file_location("score_extraction", SCORER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def database_lexicon(statute_repository: Any) -> Lexicon:
    """The lexicon the CLI uses: every law name and alias of the statute database."""
    return Lexicon.from_mapping(statute_repository.lexicon())


def test_dev_set_strict_f1(database_lexicon: Lexicon) -> None:
    """Strict F1 on the 263 labelled citations is at least 0.97 (the shared scorer's keys)."""
    scorer = _scorer()
    gold = json.loads(Path(LABELED).read_text(encoding="utf-8"))
    tp = fp = fn = 0
    for answer in gold:
        found = [c.to_json() for c in extract(answer["answer"], database_lexicon)]
        expected = Counter(map(scorer.strict, answer["citations"]))
        predicted = Counter(map(scorer.strict, found))
        hits = sum((expected & predicted).values())
        tp, fp, fn = (
            tp + hits,
            fp + sum(predicted.values()) - hits,
            fn + sum(expected.values()) - hits,
        )
    precision, recall, f1 = scorer.prf(tp, fp, fn)
    assert f1 >= 0.97, (precision, recall, f1)


def test_dev_set_surfaces_and_flags(database_lexicon: Lexicon) -> None:
    """Labelled surfaces, law_as_written, implicit and range come back, answer by answer."""
    gold = json.loads(Path(LABELED).read_text(encoding="utf-8"))
    agree = total = 0
    for answer in gold:
        expected = [
            (c["surface"], c["law_as_written"], c["implicit"], c["range"])
            for c in answer["citations"]
        ]
        found = [
            (c.surface, c.law_as_written, c.implicit, c.range)
            for c in extract(answer["answer"], database_lexicon)
        ]
        total += 1
        agree += expected == found
    assert agree / total >= 0.97, f"{agree}/{total} answers agree"


def test_grammar_parses_every_span_of_real_text(lexicon: Lexicon) -> None:
    """Every span the pre-scan cuts from real answers, questions and recitations parses: its
    law part (where it has one) and its run of references."""
    from extractor.candidates import find_candidates
    from extractor.grammar import parse_law, parse_run

    texts = []
    for line in (SHARED_DIR / "eval" / "flzx_dev_answers.jsonl").open(encoding="utf-8"):
        record = json.loads(line)
        texts += [record["answer"], record["question"]]
    for line in (SHARED_DIR / "eval" / "recite_dev.jsonl").open(encoding="utf-8"):
        texts.append(json.loads(line)["recited"])
    spans = [
        (text[c.start : c.run_start], text[c.run_start : c.end])
        for text in texts
        for c in find_candidates(text, lexicon)
        if c.kind == "chain"
    ]
    assert len(spans) > 9000
    for law_part, run in spans:
        if law_part:
            parse_law(law_part)
        assert parse_run(run).references, run
