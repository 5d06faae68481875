"""GET /api/v1/audit/export?quarter=2026Q4: a quarter's evidence pack (role auditor or admin)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import FileResponse

from web.deps import AuditKeyDep, AuditToolsDep, EngineDep, SettingsDep
from web.packs import QUARTER_PATTERN, pack_download
from web.schemas import ERROR_RESPONSES

router = APIRouter(prefix="/api/v1/audit", tags=["audit"])


@router.get(
    "/export",
    response_class=FileResponse,
    responses={
        200: {"content": {"application/zip": {}}, "description": "lexgate-audit-2026Q4.zip"},
        **ERROR_RESPONSES,
    },
)
def export_quarter(
    quarter: Annotated[
        str, Query(pattern=QUARTER_PATTERN, description="The calendar quarter, e.g. 2026Q4.")
    ],
    _key: AuditKeyDep,
    engine: EngineDep,
    settings: SettingsDep,
    tools: AuditToolsDep,
) -> FileResponse:
    """The evidence pack of the quarter (cases whose first answer was gated in it, in the
    configured timezone): the zip `lexgate audit export` writes, checked by `lexgate audit
    verify`."""
    return pack_download(engine, quarter, settings=settings, scheme=tools.pseudonymizer.scheme)
