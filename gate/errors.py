"""The gate's domain exceptions; the CLI and the web turn them into messages and codes."""

from __future__ import annotations


class GateError(Exception):
    """Base of every error raised by the gate package."""


class RegeneratorError(GateError):
    """The language model gave no usable answer; the gate ends the round in regenerator_error."""


class RegeneratorConfigError(RegeneratorError):
    """The client is missing or given an unusable base URL, model or retry setting."""


class RegeneratorUnavailableError(RegeneratorError):
    """No HTTP reply on any attempt: every request failed to connect or timed out."""

    def __init__(self, message: str, *, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


class RegeneratorConnectionError(RegeneratorUnavailableError):
    """The server could not be reached, or dropped the connection, on every attempt."""


class RegeneratorTimeoutError(RegeneratorUnavailableError):
    """The server did not answer within the timeout on every attempt."""


class RegeneratorHTTPError(RegeneratorError):
    """The server answered with an error status (a 4xx at once, or a 429/5xx on every attempt)."""

    def __init__(self, message: str, *, status_code: int, attempts: int) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.attempts = attempts


class InvalidReplyError(RegeneratorError):
    """A 2xx reply that is not a usable chat completion (not JSON, no choices, no message...)."""


class EmptyContentError(InvalidReplyError):
    """The completion's content is empty or only whitespace."""


class MissingLogprobsError(InvalidReplyError):
    """Logprobs were asked for and the reply has none for the first token."""


class RoundClosedError(GateError):
    """An attempt was submitted to a round that has already ended."""


class JudgeError(GateError):
    """The model judge gave no usable judgement; the gate records it and decides without it."""


class JudgeUnavailableError(JudgeError):
    """The judge's server failed (HTTP error, timeout, connection, unusable reply)."""


class JudgeReplyError(JudgeError):
    """The judge replied, but none of the options A/B/C is among the first token's logprobs."""


class JudgeInputError(JudgeError):
    """A calibration file is unusable: missing, a bad line, an unknown relation or law."""
