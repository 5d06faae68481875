"""The upstream: the OpenAI-compatible chat API the gateway forwards each completion to.

One pooled `httpx.AsyncClient` per process. A completion is read whole, streamed or not
(a stream is buffered to its end), within LEXGATE_GATEWAY_TIMEOUT_S for the whole exchange;
anything short of a complete answer is an `UpstreamError`, never part of an answer. Nothing is
retried here: the app's own OpenAI client retries the 5xx and 504 the gateway answers with.
The upstream key is sent as a Bearer header to the upstream only; messages passed on to the
app have it blanked out.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from pydantic import SecretStr

from gate.errors import InvalidReplyError
from lexgate.llm import parse_completion
from web.gateway.errors import (
    NotConfigured,
    UpstreamError,
    UpstreamInvalidReply,
    UpstreamRejected,
    UpstreamTimeout,
)

log = logging.getLogger("lexgate.gateway")

_EXCERPT_CHARS = 200
_REDACTED = "[redacted]"


@dataclass(frozen=True, slots=True)
class UpstreamAnswer:
    """One complete answer of the upstream: its text and what the app is told about it."""

    content: str
    id: str | None
    created: int | None
    finish_reason: str | None
    usage: Mapping[str, Any] | None
    extra: Mapping[str, Any]  # the completion's other top-level fields (system_fingerprint …)


class Upstream:
    """POST {base_url}/chat/completions and GET {base_url}/models of one upstream."""

    def __init__(
        self,
        base_url: str | None,
        *,
        api_key: SecretStr | None = None,
        timeout_s: float = 60.0,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/") if base_url else None
        self._api_key = api_key
        self.timeout_s = timeout_s
        self._client = client or httpx.AsyncClient(
            timeout=httpx.Timeout(timeout_s),
            limits=httpx.Limits(max_connections=256, max_keepalive_connections=64),
            follow_redirects=False,
        )

    def __repr__(self) -> str:
        return f"Upstream({self.base_url!r})"  # never the key

    async def aclose(self) -> None:
        await self._client.aclose()

    def _url(self, path: str) -> str:
        if self.base_url is None:
            raise NotConfigured(
                "the gateway has no upstream: set LEXGATE_GATEWAY_UPSTREAM_URL",
            )
        return f"{self.base_url}{path}"

    def _headers(self, accept: str) -> dict[str, str]:
        headers = {"Accept": accept}
        if self._api_key is not None:
            headers["Authorization"] = f"Bearer {self._api_key.get_secret_value()}"
        return headers

    def _excerpt(self, text: str) -> str:
        """Server text for a message, short, with the upstream key blanked out."""
        secret = self._api_key.get_secret_value() if self._api_key is not None else ""
        return (text.replace(secret, _REDACTED) if secret else text)[:_EXCERPT_CHARS]

    async def complete(self, body: Mapping[str, Any]) -> UpstreamAnswer:
        """The upstream's whole answer to a chat-completions body (streamed when it says so)."""
        url = self._url("/chat/completions")
        streamed = bool(body.get("stream"))
        accept = "text/event-stream" if streamed else "application/json"
        try:
            async with asyncio.timeout(self.timeout_s):
                request = self._client.build_request(
                    "POST", url, json=body, headers=self._headers(accept)
                )
                response = await self._client.send(request, stream=True)
                try:
                    await self._raise_for_status(response)
                    if streamed:
                        return await _read_stream(response.aiter_lines(), self._excerpt)
                    return _read_completion(await response.aread(), self._excerpt)
                finally:
                    await response.aclose()
        except TimeoutError:
            raise UpstreamTimeout(
                f"the upstream did not answer within {self.timeout_s:g} s"
            ) from None
        except httpx.TimeoutException as error:
            raise UpstreamTimeout(
                f"the upstream did not answer within {self.timeout_s:g} s ({type(error).__name__})"
            ) from None
        except httpx.TransportError as error:
            raise UpstreamError(
                f"the upstream cannot be reached ({type(error).__name__}: "
                f"{self._excerpt(str(error))})"
            ) from None

    async def models(self) -> list[str]:
        """The ids of the upstream's GET /models list."""
        url = self._url("/models")
        try:
            response = await self._client.get(url, headers=self._headers("application/json"))
        except httpx.TimeoutException:
            raise UpstreamTimeout(
                f"the upstream did not answer within {self.timeout_s:g} s"
            ) from None
        except httpx.TransportError as error:
            raise UpstreamError(
                f"the upstream cannot be reached ({type(error).__name__})"
            ) from None
        await self._raise_for_status(response)
        try:
            data = response.json()["data"]
            return [str(item["id"]) for item in data]
        except (ValueError, KeyError, TypeError):
            raise _invalid("to GET /models is unusable", response.text, self._excerpt) from None

    async def _raise_for_status(self, response: httpx.Response) -> None:
        """UpstreamRejected for a 4xx the app caused, UpstreamError for the rest of the failures."""
        if response.is_success:
            return
        status = response.status_code
        detail = _error_message(await response.aread(), self._excerpt)
        if status in (401, 403):  # the gateway's own upstream key: not the app's to fix
            raise UpstreamError(f"the upstream refused the gateway's key (HTTP {status})")
        if 400 <= status < 500:
            raise UpstreamRejected(
                f"the upstream refused the request: {detail}", status_code=status
            )
        raise UpstreamError(f"the upstream failed with HTTP {status}: {detail}")


def _error_message(raw: bytes, excerpt: Any) -> str:
    """error.message of an OpenAI error body; any other body is logged, not passed on."""
    text = raw.decode("utf-8", errors="replace")
    try:
        payload = json.loads(text)
    except ValueError:
        payload = None
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return repr(excerpt(error["message"]))
    log.warning("the upstream's error body: %r", excerpt(text))
    return f"(no error message; {len(raw)} bytes)"


def _invalid(what: str, shown: str, excerpt: Any) -> UpstreamInvalidReply:
    """The error of an unusable reply. Its text goes to the log, never to the app: it may hold
    part of an answer that was not gated."""
    log.warning("the upstream's reply %s: %r", what, excerpt(shown))
    return UpstreamInvalidReply(f"the upstream's reply {what}")


def _read_completion(raw: bytes, excerpt: Any) -> UpstreamAnswer:
    """The answer of a non-streamed completion."""
    try:
        payload = json.loads(raw)
    except ValueError:
        text = raw.decode("utf-8", errors="replace")
        raise _invalid(f"is not JSON ({len(raw)} bytes)", text, excerpt) from None
    try:
        completion = parse_completion(payload, want_logprobs=False)
    except InvalidReplyError as error:
        raise _invalid("is not a usable chat completion", str(error), excerpt) from None
    extra = {k: v for k, v in payload.items() if k not in _NAMED_FIELDS}
    return UpstreamAnswer(
        content=completion.content,
        id=_text(payload.get("id")),
        created=_number(payload.get("created")),
        finish_reason=completion.finish_reason,
        usage=_usage(payload.get("usage")),
        extra=extra,
    )


_NAMED_FIELDS = frozenset({"id", "object", "created", "model", "choices", "usage"})


async def _read_stream(lines: AsyncIterator[str], excerpt: Any) -> UpstreamAnswer:
    """The whole answer of a streamed completion (server-sent events ending in [DONE])."""
    parts: list[str] = []
    first: dict[str, Any] = {}
    finish_reason: str | None = None
    usage: Mapping[str, Any] | None = None
    done = False
    async for line in lines:
        if not line.startswith("data:"):
            continue  # blank separators, comments (": keep-alive"), event: lines
        data = line[len("data:") :].strip()
        if data == "[DONE]":
            done = True
            break
        try:
            chunk = json.loads(data)
        except ValueError:
            raise _invalid("stream holds an event that is not JSON", data, excerpt) from None
        if not isinstance(chunk, dict):
            raise _invalid("stream holds an event that is not an object", data, excerpt)
        if "error" in chunk:
            log.warning("the upstream failed mid-stream: %r", excerpt(str(chunk["error"])))
            raise UpstreamError("the upstream failed mid-stream")
        first = first or chunk
        usage = _usage(chunk.get("usage")) or usage
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict) and isinstance(delta.get("content"), str):
                parts.append(delta["content"])
            if isinstance(choice.get("finish_reason"), str):
                finish_reason = choice["finish_reason"]
    if not done and finish_reason is None:
        raise UpstreamInvalidReply("the upstream's stream ended before the answer did")
    content = "".join(parts)
    if not content.strip():
        raise UpstreamInvalidReply(
            f"the upstream's streamed answer is empty (finish_reason={finish_reason or 'none'})"
        )
    extra = {k: v for k, v in first.items() if k not in _NAMED_FIELDS}
    return UpstreamAnswer(
        content=content,
        id=_text(first.get("id")),
        created=_number(first.get("created")),
        finish_reason=finish_reason,
        usage=usage,
        extra=extra,
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _usage(value: object) -> Mapping[str, Any] | None:
    return value if isinstance(value, dict) else None


__all__ = ["Upstream", "UpstreamAnswer"]
