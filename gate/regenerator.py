"""The language model behind reruns, as the gate sees it: anything that regenerates.

The OpenAI-compatible HTTP client is at the edge (`lexgate.llm.OpenAIRegenerator`).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from gate.models import RerunRequest


@runtime_checkable
class Regenerator(Protocol):
    """Anything that answers a rerun request with the model's new answer text."""

    def regenerate(self, request: RerunRequest) -> str:
        """The new answer; raises `RegeneratorError` when none could be obtained."""
        ...


__all__ = ["Regenerator"]
