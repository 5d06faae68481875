"""POST /api/v1/gate (the decision, recorded) and POST /api/v1/premise (facts before generation).

POST /api/v1/gate is the service's busiest request: besides its FastAPI route (documented in
the OpenAPI schema, and answering whatever is unusual) it has a direct route, matched first,
that answers the usual request (a JSON object that validates, a valid API key whose role may
gate, the worker's key cache on: it reads a key it does not hold as FastAPI's route would)
without FastAPI's routing over every router and its dependency solving: the same code gates
the answer, and the reply's bytes are the ones the FastAPI route would send. Anything else
goes on to the FastAPI route, as if the direct route were not there.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from fastapi import APIRouter
from pydantic import TypeAdapter, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, Route
from starlette.types import Receive, Scope, Send

from gate import premise
from gate.models import AttemptRecord
from web.apikeys import KeyCache
from web.deps import (
    GateKeyDep,
    GateService,
    GateServiceDep,
    PremiseKeyDep,
    RepoDep,
    TodayDep,
    bearer_scheme,
    get_gate_service,
    header_scheme,
    verify_key,
)
from web.middleware import replaying
from web.models import Permission
from web.recording import GateOutcome, GateRequestData, assess_request, find_round
from web.schemas import (
    ERROR_RESPONSES,
    ErrorResponse,
    GateRequest,
    GateResponse,
    PremiseRequest,
    PremiseResponse,
)

router = APIRouter(prefix="/api/v1", tags=["gate"])

GATE_RESPONSES: dict[int | str, dict[str, object]] = {
    **ERROR_RESPONSES,
    409: {
        "model": ErrorResponse,
        "description": "The answer does not fit the session's round (`field`: attempt, "
        "question, as_of, subject_id or session_id).",
    },
}


RESPONSE_EXCLUDES = frozenset({"answer", "judged", "judge_error", "tail_coverage"})
"""The last attempt's fields the response leaves out (besides those no dump holds: the check)."""
ATTEMPT_FIELDS = tuple(
    name
    for name, field in AttemptRecord.model_fields.items()
    if name not in RESPONSE_EXCLUDES and not field.exclude
)
"""The last attempt's fields the response holds, in the attempt's order (its dump's keys)."""


def gate_response(outcome: GateOutcome) -> dict[str, Any]:
    """The response body: the last attempt of the round, and the round's state.

    The attempt's fields are its own values (the gate's frozen models, which the response
    model holds as they are), not a JSON dump of them validated again: the same response."""
    round_ = outcome.round
    last = round_.attempts[-1]
    attempt = {name: getattr(last, name) for name in ATTEMPT_FIELDS}
    ended = round_.state != "open"
    return {
        "session_id": outcome.session_id,
        "case_id": outcome.case_id,
        **attempt,
        "as_of": round_.as_of,
        "round": {
            "state": round_.state,
            "delivery": round_.delivery,
            "attempts": len(round_.attempts),
            "max_attempts": round_.max_attempts,
            "next_attempt": None if ended else len(round_.attempts) + 1,
            "as_of": round_.as_of,
            "question": round_.question,
        },
    }


@router.post("/gate", response_model=GateResponse, responses=GATE_RESPONSES)
async def gate_answer(
    body: GateRequest, _key: GateKeyDep, service: GateServiceDep
) -> dict[str, Any]:
    """The gate's decision on `answer`, recorded in the audit trail before it is returned.

    The same `session_id` continues its open round: the response says the attempt number and
    the round's state, and `rerun_request` is what to send to the model next.
    """
    return await gate_body(body, service)


async def gate_body(body: GateRequest, service: GateService) -> dict[str, Any]:
    """The answer of body gated in its round and recorded: the response body (both routes)."""
    request = GateRequestData(  # field by field: a dict dump of the body costs twice as much
        answer=body.answer,
        question=body.question,
        subject_id=body.subject_id,
        session_id=body.session_id,
        attempt=body.attempt,
        as_of=body.as_of,
    )
    tools = service.tools
    found = (
        await run_in_threadpool(find_round, request, tools)
        if request.session_id is not None
        else None
    )
    assess = partial(
        assess_request, request, found, repo=service.repo, tools=tools, today=service.today
    )
    # The assessment is CPU work, done on the event loop as POST /check's (in the order the
    # requests came); a model judge's HTTP calls go to a thread.
    gated = assess() if tools.judge is None else await run_in_threadpool(assess)
    return gate_response(await service.writer.write(gated))


GATE_RESPONSE = TypeAdapter(GateResponse)
"""The response model, as FastAPI validates and dumps it (`by_alias`, straight to JSON)."""
DECLINED = "lexgate.gate_direct_declined"
"""Set in the scope of a request the direct route leaves to the FastAPI route."""
GATE_PERMISSION: Permission = "gate"


async def _usual_request(request: Request, body: bytes) -> GateRequest | None:
    """The validated body, when the request is a usual one (else None: FastAPI's route
    answers it, with its errors): JSON that validates, and a valid key whose role may gate,
    with the worker's key cache on (a key it does not hold yet, or no longer, is read as
    FastAPI's route would read it, and kept)."""
    content_type = request.headers.get("content-type", "")
    if content_type.split(";", 1)[0].strip().lower() != "application/json" or not body:
        return None
    bearer = await bearer_scheme(request)
    presented = bearer.credentials if bearer is not None else await header_scheme(request)
    if not presented:
        return None
    cache: KeyCache = request.app.state.key_cache
    if cache.ttl_s <= 0:
        return None
    try:
        key = await verify_key(request, presented)
    except Exception:  # the database, most likely: FastAPI's route reads again and answers
        return None
    if key is None or not key.may(GATE_PERMISSION):
        return None
    try:
        return GateRequest.model_validate(json.loads(body))
    except (ValueError, RecursionError, ValidationError):  # not JSON, nested too deep, fields
        return None


class _DirectGate:
    """The direct route's ASGI app: the usual request answered here, any other routed again
    (the direct route declining it) to FastAPI's route."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await _direct_gate(scope, receive, send)


async def _direct_gate(scope: Scope, receive: Receive, send: Send) -> None:
    request = Request(scope, receive)
    body = await request.body()
    gate_request = await _usual_request(request, body)
    if gate_request is None:
        scope[DECLINED] = True
        await scope["router"].app(scope, replaying(body, receive), send)
        return
    content = await gate_body(gate_request, await get_gate_service(request))
    encoded = GATE_RESPONSE.dump_json(GATE_RESPONSE.validate_python(content), by_alias=True)
    await Response(encoded, media_type="application/json")(scope, receive, send)


class DirectGateRoute(Route):
    """POST /api/v1/gate's direct route (see the module's docstring), matched before the
    routers: only POST to its path matches it (another method finds FastAPI's route and its
    405), and a request it declined does not match it again."""

    def __init__(self) -> None:
        super().__init__(
            f"{router.prefix}/gate", _DirectGate(), methods=["POST"], include_in_schema=False
        )

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope.get(DECLINED):
            return Match.NONE, {}
        match, child_scope = super().matches(scope)
        return (Match.FULL, child_scope) if match == Match.FULL else (Match.NONE, {})


@router.post("/premise", response_model=PremiseResponse, responses=ERROR_RESPONSES)
def premise_facts(
    body: PremiseRequest, _key: PremiseKeyDep, repo: RepoDep, today: TodayDep
) -> dict[str, Any]:
    """Facts about the laws the question names, to put into the generation prompt."""
    as_of = body.as_of or today
    facts = premise(body.question, repo=repo, as_of=as_of)
    return {"as_of": as_of.isoformat(), "facts": [f.model_dump(mode="json") for f in facts]}
