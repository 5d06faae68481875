"""GET /api/v1/healthz (the process is up) and GET /api/v1/readyz (the database answers)."""

from __future__ import annotations

import sqlalchemy as sa
from fastapi import APIRouter, Request

from web.deps import EngineDep
from web.schemas import ERROR_RESPONSES, HealthResponse, ReadyResponse

router = APIRouter(prefix="/api/v1", tags=["health"])


@router.get("/healthz", response_model=HealthResponse)
def healthz() -> HealthResponse:
    """The process is up (no database access)."""
    return HealthResponse(status="ok")


@router.get("/readyz", response_model=ReadyResponse, responses={503: ERROR_RESPONSES[503]})
def readyz(request: Request, engine: EngineDep) -> ReadyResponse:
    """The database answers and the statutes are loaded; 503 otherwise."""
    with engine.connect() as connection:
        connection.execute(sa.text("SELECT 1"))
    stats = request.app.state.statutes.get().stats()
    return ReadyResponse(
        status="ready", laws=stats["laws"], versions=stats["versions"], articles=stats["articles"]
    )
