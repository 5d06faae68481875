"""POST /api/v1/gate (the decision, recorded) and POST /api/v1/premise (facts before generation)."""

from __future__ import annotations

from functools import partial
from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from gate import premise
from web.deps import GateKeyDep, GateServiceDep, PremiseKeyDep, RepoDep, TodayDep
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


def gate_response(outcome: GateOutcome) -> dict[str, Any]:
    """The response body: the last attempt of the round, and the round's state."""
    round_ = outcome.round
    attempt = round_.attempts[-1].model_dump(
        mode="json", exclude={"answer", "judged", "judge_error", "tail_coverage"}
    )
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
    request = GateRequestData(**body.model_dump())
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


@router.post("/premise", response_model=PremiseResponse, responses=ERROR_RESPONSES)
def premise_facts(
    body: PremiseRequest, _key: PremiseKeyDep, repo: RepoDep, today: TodayDep
) -> dict[str, Any]:
    """Facts about the laws the question names, to put into the generation prompt."""
    as_of = body.as_of or today
    facts = premise(body.question, repo=repo, as_of=as_of)
    return {"as_of": as_of.isoformat(), "facts": [f.model_dump(mode="json") for f in facts]}
