"""docs/gate.md states the policy, each standard, each signal and each template."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from gate import Policy
from gate.facts import TEMPLATES_DIR
from gate.models import RoundState, Signal, StandardName

DOCS = Path(__file__).resolve().parents[2] / "docs" / "gate.md"
NAMES = sorted(
    {
        *Policy.model_fields,
        *typing.get_args(StandardName),
        *typing.get_args(Signal),
        *typing.get_args(RoundState),
        *(path.name for path in Path(TEMPLATES_DIR).glob("*.j2")),
    }
)


@pytest.mark.parametrize("name", NAMES, ids=NAMES)
def test_documented(name: str) -> None:
    """Each policy field, standard, signal, round state and template appears in backticks."""
    assert f"`{name}`" in DOCS.read_text(encoding="utf-8")
