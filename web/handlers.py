"""Exceptions -> responses: JSON `{"error": {...}}` under /api, a Chinese error page elsewhere.

Never a bare 500 page: validation errors name the field (422), database failures are 503,
and anything unexpected is a 500 in the same shape.
"""

from __future__ import annotations

import logging
from typing import Any

import sqlalchemy as sa
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Scope

from web.errors import DatabaseUnavailable, LoginRequired, WebError
from web.templating import templates

log = logging.getLogger("lexgate.web")

API_PREFIX = "/api/"
_LOCATIONS = ("body", "query", "path", "header", "cookie")

STATUS_TITLES = {
    400: "请求有误",
    401: "需要 API 密钥",
    403: "无权访问",
    404: "未找到",
    405: "不支持的请求方法",
    413: "内容过长",
    415: "不支持的内容类型",
    422: "输入有误",
    500: "服务器内部错误",
    503: "数据库暂不可用",
}
# What an error page says when the error brings no sentence written for the pages.
PAGE_MESSAGES = {
    400: "请求有误。",
    401: "需要 API 密钥：请先登录。",
    403: "当前密钥的角色无权访问此页面。",
    404: "没有找到要访问的页面或条目。",
    405: "此地址不支持这种请求方法。",
    413: "提交的内容超过本服务器的上限。",
    415: "不支持这种内容类型。",
    422: "输入有误，请检查后重试。",
    500: "服务器内部错误，请稍后再试。",
    503: "数据库暂不可用，请稍后再试。",
}
HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "invalid_input",
}


def wants_json(path: str) -> bool:
    """API paths answer JSON; pages answer HTML."""
    return path.startswith(API_PREFIX) or path == "/openapi.json"


def error_payload(code: str, message: str, field: str | None) -> dict[str, Any]:
    """The one error shape of the API."""
    return {"error": {"code": code, "message": message, "field": field}}


def _written_for_pages(message: str) -> bool:
    """A message in Chinese (some errors are raised with their page sentence as message)."""
    return any("\u4e00" <= character <= "\u9fff" for character in message)


def error_response(
    path: str,
    status: int,
    code: str,
    message: str,
    field: str | None = None,
    headers: dict[str, str] | None = None,
    page_message: str | None = None,
) -> Response:
    """JSON for the API, the error page for the rest. The page speaks Chinese: page_message,
    else a message written in Chinese, else the status's own sentence (PAGE_MESSAGES)."""
    if wants_json(path):
        return JSONResponse(error_payload(code, message, field), status, headers=headers)
    if page_message is None:
        page_message = (
            message if _written_for_pages(message) else PAGE_MESSAGES.get(status, "出错了。")
        )
    html = templates.get_template("error.html").render(
        status=status, title=STATUS_TITLES.get(status, "出错了"), message=page_message, code=code
    )
    return HTMLResponse(html, status, headers=headers)


def reject_body(scope: Scope, error: WebError) -> ASGIApp:
    """The 413 response of the body-limit middleware (no app, no request object yet)."""
    return error_response(
        scope["path"], error.status_code, error.code, error.message, error.field,
        headers={"connection": "close"}, page_message=error.page_message,
    )  # fmt: skip


def field_name(loc: Any) -> str:
    parts = [str(p) for p in loc]
    if parts and parts[0] in _LOCATIONS:
        parts = parts[1:]
    named = [p for p in parts if not p.isdigit()]
    return ".".join(named) if named else "body"


async def on_validation_error(request: Request, exc: Exception) -> Response:
    """422 naming the first bad field (FastAPI's default lists pydantic's raw errors)."""
    errors = list(exc.errors()) if isinstance(exc, RequestValidationError) else []
    first: dict[str, Any] = dict(errors[0]) if errors else {"loc": ("body",), "msg": str(exc)}
    field = field_name(first.get("loc", ("body",)))
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if first.get("type") == "json_invalid":
        field, message = "body", f"body: not valid JSON ({first.get('ctx', {}).get('error', '')})"
    elif field == "body" and content_type not in ("", "application/json"):
        message = (
            f"body: the API takes JSON (Content-Type: application/json), "
            f"not {content_type}; send the fields as a JSON object"
        )
    else:
        message = f"{field}: {first.get('msg', 'invalid')}"
    page_message = f"输入有误：{field} 的值无效。" if field != "body" else None
    return error_response(
        request.url.path, 422, "invalid_input", message, field, page_message=page_message
    )


async def on_web_error(request: Request, exc: Exception) -> Response:
    """Our own errors carry their status, code and field."""
    if isinstance(exc, LoginRequired):
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/login?next={_quote(target)}", status_code=303)
    if not isinstance(exc, WebError):  # pragma: no cover - registered for WebError only
        raise exc
    headers = {"www-authenticate": "Bearer"} if exc.status_code == 401 else None
    return error_response(
        request.url.path, exc.status_code, exc.code, exc.message, exc.field, headers=headers,
        page_message=exc.page_message,
    )  # fmt: skip


async def on_http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (unknown route 404, 405) in our shape."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    detail = exc.detail if isinstance(exc, HTTPException) else str(exc)
    message = detail if isinstance(detail, str) else STATUS_TITLES.get(status, "error")
    headers = getattr(exc, "headers", None)
    return error_response(
        request.url.path, status, HTTP_CODES.get(status, "http_error"), message, headers=headers
    )


async def on_database_error(request: Request, exc: Exception) -> Response:
    """Database down (or not migrated): 503, and the cause in the log, not in the reply."""
    log.warning("database error on %s: %s", request.url.path, exc)
    error = DatabaseUnavailable("the database is unavailable; try again later")
    return error_response(request.url.path, 503, error.code, error.message)


async def on_unexpected(request: Request, exc: Exception) -> Response:
    """Anything else: 500 in the usual shape (the traceback goes to the log)."""
    log.exception("unexpected error on %s", request.url.path, exc_info=exc)
    return error_response(request.url.path, 500, "internal_error", "internal server error")


def _quote(path: str) -> str:
    from urllib.parse import quote

    return quote(path, safe="/")


def install(app: FastAPI) -> None:
    """Register every handler on the app."""
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(WebError, on_web_error)
    app.add_exception_handler(HTTPException, on_http_error)
    app.add_exception_handler(sa.exc.DBAPIError, on_database_error)
    app.add_exception_handler(Exception, on_unexpected)
