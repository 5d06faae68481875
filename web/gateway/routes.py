"""POST /v1/chat/completions (gated) and GET /v1/models, in the OpenAI wire format.

A streamed completion (`stream: true`) is gated like any other: the upstream's stream is read
to its end, the round is run, and only then is the delivered answer sent as server-sent events
in the OpenAI chunk format (the role, the text in pieces, the finish with the `lexgate` field,
the usage if asked, `[DONE]`). Any failure before that is an error body, never part of an answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from web.deps import AuditToolsDep, EngineDep, GateKeyDep, RepoDep, TodayDep
from web.gateway.errors import AnswerRefused
from web.gateway.findings import citation_note, delivered_verdicts, lexgate_info
from web.gateway.handlers import lexgate_headers
from web.gateway.models import (
    ChatCompletion,
    ChatCompletionChunk,
    ChatCompletionRequest,
    Choice,
    ChunkChoice,
    Delta,
    LexGateInfo,
    ModelCard,
    ModelList,
    OpenAIErrorResponse,
    OutputMessage,
    Usage,
)
from web.gateway.service import Caller, Gated, GatewayOptions, complete
from web.gateway.upstream import Upstream, UpstreamAnswer
from web.recording import gate_and_record

router = APIRouter(prefix="/v1", tags=["gateway"])

STREAM_PIECE_CHARS = 32
"""Characters of the delivered answer per streamed chunk."""

_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": OpenAIErrorResponse, "description": description}
    for status, description in (
        (400, "The request is malformed (`param` names the field)."),
        (401, "No gateway API key, or an unknown or revoked one."),
        (403, "The key's role may not gate."),
        (404, "The model is not one the gateway serves."),
        (409, "Another completion of the same X-LexGate-Session is being gated."),
        (422, "Refused: the round ended exhausted and the policy blocks it (`lexgate` says why)."),
        (502, "The upstream failed or answered garbage."),
        (503, "No upstream configured, or the database or audit trail is unavailable."),
        (504, "The upstream did not answer in time."),
    )
}


def _usage(answers: Sequence[UpstreamAnswer]) -> Usage | None:
    """The tokens of every upstream answer of the round, summed (reruns cost tokens too)."""
    given = [answer.usage for answer in answers if answer.usage is not None]
    if not given:
        return None
    totals = {
        name: sum(int(usage.get(name) or 0) for usage in given)
        for name in ("prompt_tokens", "completion_tokens", "total_tokens")
    }
    return Usage(**totals)


def _completion(
    body: ChatCompletionRequest, gated: Gated, text: str, info: LexGateInfo
) -> ChatCompletion:
    last = gated.answers[-1]
    extra: Mapping[str, Any] = {k: v for k, v in last.extra.items() if k != "lexgate"}
    return ChatCompletion(
        **extra,
        id=last.id or f"chatcmpl-{info.case_id}",
        created=last.created or int(time.time()),
        model=body.model,
        choices=[Choice(message=OutputMessage(content=text), finish_reason=last.finish_reason)],
        usage=_usage(gated.answers),
        lexgate=info,
    )


def _events(completion: ChatCompletion, include_usage: bool) -> Iterator[str]:
    """The delivered answer as OpenAI chunk events, ending in [DONE]."""
    text = completion.choices[0].message.content

    def event(choices: list[ChunkChoice], **fields: Any) -> str:
        chunk = ChatCompletionChunk(
            id=completion.id,
            created=completion.created,
            model=completion.model,
            choices=choices,
            **fields,
        )
        return f"data: {chunk.model_dump_json(exclude_none=True)}\n\n"

    yield event([ChunkChoice(delta=Delta(role="assistant", content=""))])
    for start in range(0, len(text), STREAM_PIECE_CHARS):
        yield event([ChunkChoice(delta=Delta(content=text[start : start + STREAM_PIECE_CHARS]))])
    finish = completion.choices[0].finish_reason or "stop"
    yield event([ChunkChoice(delta=Delta(), finish_reason=finish)], lexgate=completion.lexgate)
    if include_usage:
        yield event([], usage=completion.usage or Usage())
    yield "data: [DONE]\n\n"


@router.post(
    "/chat/completions",
    response_model=ChatCompletion,
    response_model_exclude_none=True,
    responses=_ERRORS,
)
async def chat_completions(
    body: ChatCompletionRequest,
    request: Request,
    _key: GateKeyDep,
    repo: RepoDep,
    today: TodayDep,
    engine: EngineDep,
    tools: AuditToolsDep,
    x_lexgate_subject: Annotated[str | None, Header()] = None,
    x_lexgate_session: Annotated[str | None, Header()] = None,
) -> Response:
    """The upstream's answer, gated (and rerun with injected facts while the round asks).

    The round is recorded in the audit trail as POST /api/v1/gate records it: subject from
    X-LexGate-Subject or `user`, session from X-LexGate-Session (else a new one), both stored
    as pseudonyms. The `lexgate` field and the X-LexGate-* headers say what the gate found.
    """
    options: GatewayOptions = request.app.state.gateway_options
    upstream: Upstream = request.app.state.upstream
    gate = partial(gate_and_record, engine=engine, repo=repo, tools=tools, today=today,
                   policy=options.policy)  # fmt: skip
    caller = Caller(subject_id=x_lexgate_subject or body.user, session_id=x_lexgate_session)
    gated = await complete(body, upstream=upstream, options=options, caller=caller, gate=gate)
    info = lexgate_info(gated.outcome, judge_on=tools.judge is not None)
    headers = lexgate_headers(info)
    if gated.outcome.round.delivery == "block":
        raise AnswerRefused(
            f"LexGate refused the answer: the round ended {info.state} after {info.attempts} "
            f"attempt(s) with citations it could not verify ({info.badge})",
            info,
        )
    text = gated.answers[-1].content
    if options.citation_note:
        text += citation_note(delivered_verdicts(gated.outcome))
    completion = _completion(body, gated, text, info)
    if body.stream:
        include_usage = body.stream_options is not None and body.stream_options.include_usage
        return StreamingResponse(
            _events(completion, include_usage), media_type="text/event-stream", headers=headers
        )
    return JSONResponse(completion.model_dump(mode="json", exclude_none=True), headers=headers)


@router.get("/models", response_model=ModelList, responses=_ERRORS)
async def models(request: Request, _key: GateKeyDep) -> ModelList:
    """The models the app may ask for: the mapped names, else the upstream's own list."""
    options: GatewayOptions = request.app.state.gateway_options
    names = list(options.models) or await request.app.state.upstream.models()
    return ModelList(data=[ModelCard(id=name) for name in names])
