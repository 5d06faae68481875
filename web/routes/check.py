"""POST /api/v1/check: the citations of an answer with their verdicts and the summary."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from verifier import check, result_to_json
from web.deps import CheckKeyDep, RepoDep, TodayDep
from web.schemas import ERROR_RESPONSES, CheckRequest, CheckResponse

router = APIRouter(prefix="/api/v1", tags=["check"])


@router.post("/check", response_model=CheckResponse, responses=ERROR_RESPONSES)
async def check_answer(
    body: CheckRequest, _key: CheckKeyDep, repo: RepoDep, today: TodayDep
) -> JSONResponse:
    """Every statute citation of `answer`, verified as of `as_of` (the CLI's JSON); the texts
    only with `with_text`."""
    result = check(body.answer, repo, body.as_of or today)
    # Returned as is: the schema documents it, and a test holds the two together.
    return JSONResponse(result_to_json(result, with_text=body.with_text))
