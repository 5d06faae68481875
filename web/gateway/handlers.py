"""Exceptions -> OpenAI-style error bodies: `{"error": {"message", "type", "param", "code"}}`.

Every error of the gateway app has this shape, so an OpenAI client raises its usual exception
classes (AuthenticationError, BadRequestError, APIStatusError …) with our message.
"""

from __future__ import annotations

import logging
from typing import Any

import sqlalchemy as sa
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Scope

from web.errors import WebError
from web.gateway.errors import AnswerRefused, GatewayError
from web.gateway.models import LexGateInfo, OpenAIError, OpenAIErrorResponse
from web.handlers import field_name

log = logging.getLogger("lexgate.gateway")

# The LexGate error (status) as OpenAI names its kind; 422 is OpenAI's 400.
_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "permission_error",
    404: "invalid_request_error",
    405: "invalid_request_error",
    409: "conflict_error",
    413: "invalid_request_error",
    422: "invalid_request_error",
}
_CODES: dict[int, str] = {401: "invalid_api_key", 404: "not_found", 405: "method_not_allowed"}


def openai_error(
    status: int,
    message: str,
    *,
    type_: str | None = None,
    code: str | None = None,
    param: str | None = None,
    info: LexGateInfo | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """One OpenAI-style error response."""
    body = OpenAIErrorResponse(
        error=OpenAIError(
            message=message,
            type=type_ or _TYPES.get(status, "server_error"),
            param=param,
            code=code,
        ),
        lexgate=info,
    )
    return JSONResponse(body.model_dump(mode="json", exclude_none=True), status, headers=headers)


def reject_body(scope: Scope, error: WebError) -> ASGIApp:
    """The 413 of the body-limit middleware."""
    return openai_error(413, error.message, code=error.code, headers={"connection": "close"})


async def on_gateway_error(request: Request, exc: Exception) -> Response:
    if not isinstance(exc, GatewayError):  # pragma: no cover - registered for GatewayError
        raise exc
    info = exc.info if isinstance(exc, AnswerRefused) else None
    headers = _lexgate_headers(info) if info is not None else None
    if exc.status_code >= 500:
        log.warning("%s on %s: %s", exc.code, request.url.path, exc.message)
    return openai_error(
        exc.status_code,
        exc.message,
        type_=exc.type,
        code=exc.code,
        param=exc.param,
        info=info,
        headers=headers,
    )


async def on_web_error(request: Request, exc: Exception) -> Response:
    """The service's own errors (API key, round conflicts, audit trail, database)."""
    if not isinstance(exc, WebError):  # pragma: no cover - registered for WebError only
        raise exc
    status = 400 if exc.status_code == 422 else exc.status_code
    headers = {"www-authenticate": "Bearer"} if status == 401 else None
    code = _CODES.get(status, exc.code)
    return openai_error(status, exc.message, code=code, param=exc.field, headers=headers)


async def on_validation_error(request: Request, exc: Exception) -> Response:
    """400 naming the first bad field, as OpenAI answers a malformed request."""
    errors = list(exc.errors()) if isinstance(exc, RequestValidationError) else []
    first: dict[str, Any] = dict(errors[0]) if errors else {"loc": ("body",), "msg": str(exc)}
    param = field_name(first.get("loc", ("body",)))
    if first.get("type") == "json_invalid":
        param, message = "body", "the body is not valid JSON"
    else:
        message = f"{param}: {first.get('msg', 'invalid')}"
    return openai_error(400, message, code="invalid_request", param=param)


async def on_http_error(request: Request, exc: Exception) -> Response:
    """Unknown routes (404) and methods (405)."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    detail = exc.detail if isinstance(exc, HTTPException) else str(exc)
    message = f"{request.method} {request.url.path}: {detail}"
    return openai_error(status, message, code=_CODES.get(status, "http_error"))


async def on_database_error(request: Request, exc: Exception) -> Response:
    log.warning("database error on %s: %s", request.url.path, exc)
    return openai_error(503, "the database is unavailable; try again later",
                        code="database_unavailable")  # fmt: skip


async def on_unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unexpected error on %s", request.url.path, exc_info=exc)
    return openai_error(500, "internal server error", code="internal_error")


def _lexgate_headers(info: LexGateInfo) -> dict[str, str]:
    """The response headers naming the gate's decision on the delivered answer."""
    return {
        "X-LexGate-Decision": info.decision,
        "X-LexGate-Round": info.state,
        "X-LexGate-Attempts": str(info.attempts),
        "X-LexGate-Case": info.case_id,
    }


lexgate_headers = _lexgate_headers


def install(app: FastAPI) -> None:
    """Register every handler on the gateway app."""
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(GatewayError, on_gateway_error)
    app.add_exception_handler(WebError, on_web_error)
    app.add_exception_handler(HTTPException, on_http_error)
    app.add_exception_handler(sa.exc.DBAPIError, on_database_error)
    app.add_exception_handler(Exception, on_unexpected)


__all__ = ["install", "lexgate_headers", "openai_error", "reject_body"]
