"""GET /docs: Swagger UI for the OpenAPI schema, served from this server (no CDN)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from web.templating import templates

router = APIRouter(tags=["docs"], include_in_schema=False)


@router.get("/docs", response_class=HTMLResponse)
def swagger_ui(request: Request) -> HTMLResponse:
    """Swagger UI, started by a same-origin script (the CSP allows no inline script)."""
    return templates.TemplateResponse(request, "docs.html", {})
