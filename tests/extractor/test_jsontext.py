"""`lexgate extract --jsonl`'s lines written field by field are what json.dumps writes of the
citations' JSON: over real answers and generated citations."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from extractor import Citation, Lexicon, extract
from extractor.jsontext import citations_line
from tests.conftest import SHARED_DIR
from tests.strategies import json_citations
from tests.strategies import json_counts as counts
from tests.strategies import json_texts as texts


def dumped(record_id: Any, citations: list[Citation]) -> str:
    line = {"id": record_id, "citations": [c.to_json() for c in citations]}
    return json.dumps(line, ensure_ascii=False)


def test_lines_of_real_answers_are_their_json_dumped(lexicon: Lexicon) -> None:
    path = SHARED_DIR / "eval" / "flzx_dev_answers.jsonl"
    items = [json.loads(line) for line in path.read_text("utf-8").splitlines()[::10]]
    lines = [(item["id"], extract(item["answer"], lexicon)) for item in items]
    assert sum(len(citations) for _, citations in lines) > 300
    for record_id, citations in lines:
        assert citations_line(record_id, citations) == dumped(record_id, citations)


ids = st.recursive(
    st.none() | st.booleans() | counts | st.floats() | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)


@given(record_id=ids, found=st.lists(json_citations, max_size=3))
def test_a_line_is_written_as_json_dumps_writes_it(record_id: Any, found: list[Citation]) -> None:
    """For any id a JSON line may hold and any citations, citations_line is json.dumps of the
    line's JSON."""
    assert citations_line(record_id, found) == dumped(record_id, found)
