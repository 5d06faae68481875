"""The pages' one table of Chinese labels covers every code the core can hand them."""

from __future__ import annotations

import re
from typing import Any, get_args

import pytest

from gate.models import Decision, Relation, StandardName
from verifier.models import Reason
from web.labels import DECISION_LABELS, REASON_TEXTS, RELATION_LABELS, STANDARD_LABELS

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize(
    ("table", "codes"),
    [
        (DECISION_LABELS, Decision),
        (REASON_TEXTS, Reason),
        (RELATION_LABELS, Relation),
        (STANDARD_LABELS, StandardName),
    ],
    ids=["decisions", "reasons", "relations", "standards"],
)
def test_every_code_has_a_chinese_label(table: dict[str, str], codes: Any) -> None:
    """Each value of the core's Literal type has a label, every label is Chinese, none is
    left over."""
    assert set(table) == set(get_args(codes))
    assert all(
        CJK.search(label) and not re.search(r"[a-z]_[a-z]", label) for label in table.values()
    )
