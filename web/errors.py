"""Errors of the web edge; each carries the HTTP status, a stable code and the field at fault."""

from __future__ import annotations


class WebError(Exception):
    """Base: rendered as {"error": {"code", "message", "field"}} (API) or an error page."""

    status_code = 500
    code = "internal_error"

    def __init_subclass__(cls, *, status: int | None = None, code: str | None = None) -> None:
        """`class NotFound(WebError, status=404, code="not_found")`: a subclass's status and
        code on its class line."""
        super().__init_subclass__()
        if status is not None:
            cls.status_code = status
        if code is not None:
            cls.code = code

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


class InvalidInput(WebError, status=422, code="invalid_input"):
    """A request field is malformed (422)."""


class NotFound(WebError, status=404, code="not_found"):
    """No such law, version or article (404)."""


class Unauthorized(WebError, status=401, code="unauthorized"):
    """No API key, or one that is unknown or revoked (401)."""


class Forbidden(WebError, status=403, code="forbidden"):
    """The key's role does not grant this (403)."""


class BodyTooLarge(WebError, status=413, code="body_too_large"):
    """The request body is over LEXGATE_WEB_MAX_BODY_BYTES (413)."""


class DatabaseUnavailable(WebError, status=503, code="database_unavailable"):
    """The database cannot be reached, or holds no statutes yet (503)."""


class LoginRequired(WebError, status=401, code="login_required"):
    """A page needs a key and the browser has none (redirect to /login)."""


class ApiKeyError(WebError, ValueError, status=422, code="invalid_api_key_request"):
    """A key cannot be created or revoked as asked (unknown role, unknown key id)."""


class RoundConflict(WebError, status=409, code="round_conflict"):
    """A gate request does not fit the session's round: wrong attempt, another subject (409)."""


class AuditUnavailable(WebError, status=503, code="audit_unavailable"):
    """The audit record (tables, mapping store, round store) cannot be written (503)."""
