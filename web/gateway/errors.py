"""Errors of the gateway: each becomes an OpenAI-style error body with its HTTP status.

OpenAI clients retry 408, 409, 429 and 5xx by themselves; a refused answer (422) and a bad
request (400) are not retried.
"""

from __future__ import annotations

from web.gateway.models import LexGateInfo


class GatewayError(Exception):
    """Base: `{"error": {"message", "type", "param", "code"}}` with status_code."""

    status_code = 500
    type = "server_error"
    code = "internal_error"

    def __init_subclass__(
        cls, *, status: int | None = None, type: str | None = None, code: str | None = None
    ) -> None:
        """`class ModelNotFound(GatewayError, status=404, type=…, code=…)`: a subclass's status,
        type and code on its class line; what it leaves out it inherits."""
        super().__init_subclass__()
        if status is not None:
            cls.status_code = status
        if type is not None:
            cls.type = type
        if code is not None:
            cls.code = code

    def __init__(self, message: str, *, param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.message = message
        self.param = param
        if code is not None:
            self.code = code


class BadRequest(GatewayError, status=400, type="invalid_request_error", code="invalid_request"):
    """The app's request cannot be served as asked (400)."""


class ModelNotFound(GatewayError, status=404, type="invalid_request_error", code="model_not_found"):
    """The model is not one the gateway maps to an upstream model (404)."""


class NotConfigured(GatewayError, status=503, type="server_error", code="gateway_not_configured"):
    """No upstream is configured (503)."""


class UpstreamError(GatewayError, status=502, type="upstream_error", code="upstream_error"):
    """The upstream failed: unreachable, 5xx, or its own key refused (502)."""


class UpstreamTimeout(UpstreamError, status=504, code="upstream_timeout"):
    """The upstream did not answer within LEXGATE_GATEWAY_TIMEOUT_S (504)."""


class UpstreamInvalidReply(UpstreamError, code="upstream_invalid_reply"):
    """The upstream answered something that is not a usable chat completion (502)."""


class UpstreamRejected(UpstreamError, type="invalid_request_error", code="upstream_rejected"):
    """The upstream refused the app's request (its 4xx status and message are passed on)."""

    def __init__(self, message: str, *, status_code: int, param: str | None = None):
        super().__init__(message, param=param)
        self.status_code = status_code


class AnswerRefused(
    GatewayError, status=422, type="lexgate_refused", code="citations_not_verified"
):
    """The round ended exhausted and the policy blocks such answers (422, not retried)."""

    def __init__(self, message: str, info: LexGateInfo):
        super().__init__(message)
        self.info = info


__all__ = [
    "AnswerRefused",
    "BadRequest",
    "GatewayError",
    "ModelNotFound",
    "NotConfigured",
    "UpstreamError",
    "UpstreamInvalidReply",
    "UpstreamRejected",
    "UpstreamTimeout",
]
