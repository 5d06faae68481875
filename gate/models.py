"""The gate's plain data types (no algorithm code here)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ChatMessage(_Frozen):
    """One message of a chat-completions conversation."""

    role: Literal["system", "user", "assistant"]
    content: str


class RerunRequest(_Frozen):
    """What a rerun sends to the model: the messages, for which session and which attempt."""

    messages: tuple[ChatMessage, ...] = Field(min_length=1)
    session_id: str = Field(min_length=1)
    attempt: int = Field(ge=1, description="1 is the first answer, 2 the first rerun, ...")


class TokenLogprob(_Frozen):
    """One candidate token and its natural-log probability."""

    token: str
    logprob: float


class FirstTokenLogprobs(_Frozen):
    """The logprob of the first generated token and of its top alternatives, best first."""

    token: str
    logprob: float
    top: tuple[TokenLogprob, ...] = ()


class Completion(_Frozen):
    """The parsed reply of one chat completion."""

    content: str
    model: str | None = None
    finish_reason: str | None = None
    first_token_logprobs: FirstTokenLogprobs | None = Field(
        default=None, description="Present when logprobs were asked for."
    )
