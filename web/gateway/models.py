"""The OpenAI wire format the gateway speaks: chat-completion requests, responses, stream chunks,
error bodies and the model list, plus the `lexgate` extension field it adds to each answer.

Requests keep every field they do not name (temperature, max_tokens, tools …): the gateway
forwards them to the upstream untouched. Responses keep the upstream's unknown fields too.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from gate.models import Decision, Delivery, RoundState


class _Open(BaseModel):
    """Unknown fields are kept (and sent on): the OpenAI format grows faster than we do."""

    model_config = ConfigDict(extra="allow")


# --- requests -------------------------------------------------------------------------------


class InputMessage(_Open):
    """One message of the conversation sent by the app."""

    role: str = Field(min_length=1)
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        """The message's text: the string, or its text parts joined."""
        if isinstance(self.content, str):
            return self.content
        if isinstance(self.content, list):
            parts = [part.get("text") for part in self.content if part.get("type") == "text"]
            return "".join(part for part in parts if isinstance(part, str))
        return ""


class StreamOptions(_Open):
    include_usage: bool = False


class ChatCompletionRequest(_Open):
    """POST /v1/chat/completions."""

    model: str = Field(min_length=1)
    messages: list[InputMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    n: int | None = Field(default=None, ge=1, le=1, description="One answer per request.")
    user: str | None = Field(
        default=None, description="The end user: the audit subject unless X-LexGate-Subject."
    )

    def question(self) -> str | None:
        """The last user message's text: the question the answer is gated against."""
        for message in reversed(self.messages):
            if message.role == "user":
                return message.text() or None
        return None


# --- the lexgate extension ------------------------------------------------------------------


class CitationStatus(BaseModel):
    """One citation of the delivered answer, as the verifier judged it."""

    text: str = Field(description="The citation as written in the answer.")
    start: int = Field(description="Where it stands in the answer (characters).")
    end: int
    status: Literal["verified", "deprecated", "notYetEffective", "unverified"]
    reason: str = Field(description="The verifier's reason: in_force, repealed, …")
    badge: str = Field(description="现行有效 / 已修改 / 已废止 / 尚未生效 / 未能核验.")
    note: str = Field(description="Repeal date and successor, effective date … ('' when none).")
    support: Literal["supports", "partly", "unsupported"] | None = Field(
        default=None,
        description="Whether the article says what the answer states for it (verifier.support); "
        "absent when there is nothing to judge.",
    )
    support_label: str | None = Field(
        default=None, description="内容相符 / 内容部分相符 / 内容不符."
    )


class SupportJudgement(BaseModel):
    """The model judge's view of one correctly cited article (only with a judge configured)."""

    provision: str
    claim: str
    verdict: Literal["supports", "contradicts", "says_nothing"]
    confidence: float
    stands: bool = Field(description="Confident enough to count; else it goes to human review.")


class LexGateInfo(BaseModel):
    """What LexGate found in the delivered answer and how the round ended."""

    decision: Decision = Field(description="The gate's decision on the delivered answer.")
    state: RoundState = Field(description="How the round ended (passed, exhausted, …).")
    delivery: Delivery | None
    verifiable_rate: float | None = Field(description="None when nothing is cited.")
    attempts: int = Field(description="Answers asked of the upstream, the first included.")
    max_attempts: int
    badge: str = Field(description="The short Chinese line: 已核验 3 条 · 已废止 1 条 → ….")
    citations: list[CitationStatus]
    judgements: list[SupportJudgement] | None = Field(
        default=None, description="The model judge's judgements; absent without a judge."
    )
    session_id: str = Field(description="The round's session (X-LexGate-Session, or made).")
    case_id: str = Field(description="The audit case the round is recorded as.")


# --- responses ------------------------------------------------------------------------------


class OutputMessage(_Open):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(_Open):
    index: int = 0
    message: OutputMessage
    finish_reason: str | None = "stop"
    logprobs: Any = None


class Usage(_Open):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class _Reply(BaseModel):
    """What an answer and each chunk of a streamed one carry, in the wire format's order;
    each names its own `object` and `choices`."""

    id: str
    object: str
    created: int
    model: str
    choices: list[Any]
    usage: Usage | None = None
    lexgate: LexGateInfo | None = None


class ChatCompletion(_Reply, _Open):
    """The answer delivered to the app."""

    object: Literal["chat.completion"] = "chat.completion"
    choices: list[Choice]


class Delta(BaseModel):
    role: Literal["assistant"] | None = None
    content: str | None = None


class ChunkChoice(BaseModel):
    index: int = 0
    delta: Delta
    finish_reason: str | None = None
    logprobs: Any = None


class ChatCompletionChunk(_Reply):
    """One server-sent event of a streamed answer."""

    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    choices: list[ChunkChoice]


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = "lexgate"


class ModelList(BaseModel):
    """GET /v1/models."""

    object: Literal["list"] = "list"
    data: list[ModelCard]


class OpenAIError(BaseModel):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class OpenAIErrorResponse(BaseModel):
    """Every error of the gateway, in the shape OpenAI clients parse."""

    error: OpenAIError
    lexgate: LexGateInfo | None = Field(
        default=None, description="On a refused answer: what LexGate found in it."
    )


__all__ = [
    "ChatCompletion",
    "ChatCompletionChunk",
    "ChatCompletionRequest",
    "Choice",
    "ChunkChoice",
    "CitationStatus",
    "Delta",
    "InputMessage",
    "LexGateInfo",
    "ModelCard",
    "ModelList",
    "OpenAIError",
    "OpenAIErrorResponse",
    "OutputMessage",
    "SupportJudgement",
    "Usage",
]
