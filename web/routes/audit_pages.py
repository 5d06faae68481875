"""The audit page `/audit` (role auditor or admin): a quarter's decisions over time, the
verifiable-rate histogram, the most invented articles and most cited repealed laws, drawn as
inline SVG by the server; `/audit/pack` downloads the quarter's evidence pack."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from starlette.responses import FileResponse

from web.charts import (
    DECISION_COLOURS,
    decisions_chart,
    ranking_chart,
    rate_histogram,
)
from web.dashboard import DECISIONS, load_dashboard
from web.deps import AuditPageDep, AuditToolsDep, EngineDep, SettingsDep, TodayDep
from web.errors import InvalidInput
from web.labels import DECISION_LABELS
from web.packs import pack_download, parse_quarter
from web.templating import templates

router = APIRouter(prefix="/audit", tags=["pages"], include_in_schema=False)


def current_quarter(day: Any) -> str:
    """2026Q4 for a day in October to December 2026."""
    return f"{day.year}Q{(day.month - 1) // 3 + 1}"


@router.get("", response_class=HTMLResponse)
def audit_page(
    request: Request,
    caller: AuditPageDep,
    engine: EngineDep,
    settings: SettingsDep,
    today: TodayDep,
    quarter: Annotated[str, Query(max_length=200)] = "",
) -> HTMLResponse:
    """The quarter's figures (this quarter unless ?quarter=2026Q3 is asked)."""
    chosen = quarter.strip() or current_quarter(today)
    context: dict[str, Any] = {"caller": caller, "quarter": chosen}
    try:
        period = parse_quarter(chosen, settings.timezone)
    except InvalidInput as error:
        context["error"] = f"季度格式应为 2026Q4（{error.message}）"
        return templates.TemplateResponse(request, "audit.html", context, status_code=422)
    board = load_dashboard(engine, period, today)
    context.update(
        board=board,
        decisions=DECISIONS,
        decision_labels=DECISION_LABELS,
        decision_colours=DECISION_COLOURS,
        decisions_chart=decisions_chart(board.days),
        rate_chart=rate_histogram(board.rate_bins, board.no_citations),
        invented_chart=ranking_chart(board.invented),
        repealed_chart=ranking_chart(board.repealed_laws),
    )
    return templates.TemplateResponse(request, "audit.html", context)


@router.get("/pack")
def audit_pack(
    _caller: AuditPageDep,
    engine: EngineDep,
    settings: SettingsDep,
    tools: AuditToolsDep,
    quarter: Annotated[str, Query(max_length=20)],
) -> FileResponse:
    """The quarter's evidence pack, for the page's download button (the login cookie's key)."""
    return pack_download(
        engine, quarter.strip(), settings=settings, scheme=tools.pseudonymizer.scheme
    )
