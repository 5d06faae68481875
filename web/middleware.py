"""Pure ASGI middleware: the request-body limit and the security headers of every response."""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from web.errors import BodyTooLarge
from web.forms import form_limits

# No inline script or style anywhere; everything is served by this origin.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# Swagger UI (/docs) sets style attributes and uses data: images: allowed there only.
DOCS_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)


class SecurityHeaders:
    """Adds the Content-Security-Policy and a few hardening headers to every response."""

    def __init__(self, app: ASGIApp, docs_paths: tuple[str, ...] = ("/docs",)):
        self.app = app
        self.docs_paths = docs_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        csp = DOCS_CSP if scope["path"] in self.docs_paths else CSP

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"content-security-policy", csp.encode()))
                headers.extend(_HEADERS)
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodyLimit:
    """Reads the whole request body up to `max_bytes`; past it, answers 413 without the app.

    The declared Content-Length is checked first, but the bytes are counted as they arrive
    too: a missing or false Content-Length (chunked uploads) cannot get more through.
    """

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        reject: Callable[[Scope, BodyTooLarge], ASGIApp],
    ):
        self.app = app
        self.max_bytes = max_bytes
        self.reject = reject

    def _too_large(self) -> BodyTooLarge:
        chars = form_limits(self.max_bytes).answer_chars
        return BodyTooLarge(
            f"request body over {self.max_bytes} bytes (LEXGATE_WEB_MAX_BODY_BYTES)",
            field="body",
            page_message=f"提交的内容超过本服务器的上限（{self.max_bytes:,} 字节，回答约 "
            f"{chars:,} 字）。请删减或分段核验；如需更大的上限，请管理员调高 "
            "LEXGATE_WEB_MAX_BODY_BYTES。",
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > self.max_bytes:
                    await self.reject(scope, self._too_large())(scope, receive, send)
                    return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self.reject(scope, self._too_large())(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, replaying(b"".join(chunks), receive), send)


def replaying(body: bytes, receive: Receive) -> Receive:
    """A receive that gives the whole body read already, then what receive gives (a
    disconnect)."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
