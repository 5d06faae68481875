"""The HTTP client's limits, apart from the client so that `Settings` takes their defaults
without importing httpx: how long it waits and how it retries, and the judge's logprob bounds."""

from __future__ import annotations

from dataclasses import dataclass

from gate.errors import RegeneratorConfigError

MAX_TOP_LOGPROBS = 20
"""The most alternatives the OpenAI API returns per token."""
MIN_TOP_LOGPROBS = 5
"""The fewest alternatives the judge asks for (the three options must be among them)."""


@dataclass(frozen=True, slots=True)
class ClientOptions:
    """How long the client waits for a reply and how it retries: the llm_* settings of the
    same names (docs/configuration.md), with their defaults."""

    timeout_s: float = 60.0
    max_retries: int = 3
    backoff_s: float = 1.0
    backoff_max_s: float = 30.0
    max_retry_after_s: float = 60.0

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise RegeneratorConfigError(f"the timeout must be positive, not {self.timeout_s}")
        if min(self.max_retries, self.backoff_s, self.backoff_max_s, self.max_retry_after_s) < 0:
            raise RegeneratorConfigError("retry counts and delays must not be negative")


__all__ = ["MAX_TOP_LOGPROBS", "MIN_TOP_LOGPROBS", "ClientOptions"]
