"""Errors of the web edge; each carries the HTTP status, a stable code and the field at fault."""

from __future__ import annotations


class WebError(Exception):
    """Base: rendered as {"error": {"code", "message", "field"}} (API) or an error page."""

    status_code = 500
    code = "internal_error"

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        code: str | None = None,
        page_message: str | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.field = field
        self.page_message = page_message  # the error page's Chinese sentence, when it differs
        if code is not None:
            self.code = code


class InvalidInput(WebError):
    """A request field is malformed (422)."""

    status_code = 422
    code = "invalid_input"


class NotFound(WebError):
    """No such law, version or article (404)."""

    status_code = 404
    code = "not_found"


class Unauthorized(WebError):
    """No API key, or one that is unknown or revoked (401)."""

    status_code = 401
    code = "unauthorized"


class Forbidden(WebError):
    """The key's role does not grant this (403)."""

    status_code = 403
    code = "forbidden"


class BodyTooLarge(WebError):
    """The request body is over LEXGATE_WEB_MAX_BODY_BYTES (413)."""

    status_code = 413
    code = "body_too_large"


class DatabaseUnavailable(WebError):
    """The database cannot be reached, or holds no statutes yet (503)."""

    status_code = 503
    code = "database_unavailable"


class LoginRequired(WebError):
    """A page needs a key and the browser has none (redirect to /login)."""

    status_code = 401
    code = "login_required"


class ApiKeyError(WebError, ValueError):
    """A key cannot be created or revoked as asked (unknown role, unknown key id)."""

    status_code = 422
    code = "invalid_api_key_request"


class RoundConflict(WebError):
    """A gate request does not fit the session's round: wrong attempt, another subject (409)."""

    status_code = 409
    code = "round_conflict"


class AuditUnavailable(WebError):
    """The audit record (tables, mapping store, round store) cannot be written (503)."""

    status_code = 503
    code = "audit_unavailable"
