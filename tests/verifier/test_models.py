"""The verifier's models made in bulk (`new_*`) are the dataclasses' own instances."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from extractor.models import Citation
from verifier.models import (
    NO_SUPPORT,
    Difference,
    Facts,
    FoundIn,
    Quantity,
    QuoteCheck,
    Recital,
    Resolved,
    Summary,
    Support,
    Verdict,
    new_found_in,
    new_quantity,
    new_quote_check,
    new_recital,
    new_resolved,
    new_summary,
    new_support,
    new_verdict,
)

CITATION = Citation("《劳动合同法》第八十二条", 0, 12, "劳动合同法", "劳动合同法", False, 82, None)
MADE = [
    (Recital, new_recital, ("用人单位……", "第八十二条 用人单位……", None, None, 82, None)),
    (
        Verdict,
        new_verdict,
        (
            CITATION,
            "verified",
            "in_force",
            Facts(law="劳动合同法"),
            None,
            QuoteCheck("match", 1.0),
            (),
            NO_SUPPORT,
        ),
    ),
    (
        Support,
        new_support,
        (
            "partly",
            "用人单位……",
            0.7,
            0.5,
            0.2,
            (Difference("number", "一个月", "二倍"),),
            (FoundIn("劳动合同法", "第八十三条", None, 0.9, "same_law"),),
        ),
    ),
    (Quantity, new_quantity, ("amount", 5_000_000.0, "万元", "五百万元", 3, 7, "以上")),
    (Summary, new_summary, (6, 5, 1, 0, 0)),
    (
        QuoteCheck,
        new_quote_check,
        (
            "partial",
            0.55,
            (FoundIn("劳动合同法", "第八十三条", "2012年修正", 0.9, "other_version"),),
        ),
    ),
    (FoundIn, new_found_in, ("劳动合同法", "第八十三条", None, 0.9, "same_law")),
    (
        Resolved,
        new_resolved,
        ("劳动合同法", "2012年修正", "2013-07-01", None, "第八十二条", "用人单位……"),
    ),
]


@pytest.mark.parametrize(("cls", "new", "values"), MADE, ids=[m[0].__name__ for m in MADE])
def test_made_in_bulk_is_the_dataclass(cls: type, new: Any, values: tuple[Any, ...]) -> None:
    """new_X(*values) equals X(*values), hashes and prints alike, is of type X and frozen."""
    made, built = new(*values), cls(*values)
    assert type(made) is cls
    assert made == built and hash(made) == hash(built) and repr(made) == repr(built)
    assert [getattr(made, f.name) for f in dataclasses.fields(cls)] == list(values)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.__setattr__(dataclasses.fields(cls)[0].name, None)
