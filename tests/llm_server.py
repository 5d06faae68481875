"""A real OpenAI-compatible chat-completions server on loopback, playing a script of replies.

The only test double in LexGate is for the language model's HTTP API, and it is a real HTTP
server: the client under test opens real sockets, meets real timeouts and real broken
connections. Each test scripts the replies (content, logprobs, error statuses with Retry-After,
delays, garbage bodies, dropped connections) and asserts on every request recorded.

Used as a pytest plugin (registered in tests/conftest.py): the `llm_server` fixture gives a
started `LLMServer`, `llm_down_url` a base URL on which nothing listens.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

CHAT_PATH = "/v1/chat/completions"
MODELS_PATH = "/v1/models"
MODEL_IDS = ("scripted-small", "scripted-large")
"""What GET /v1/models lists."""
STREAM_PIECE_CHARS = 7
"""Characters of content per chunk when a request asks for `stream: true`."""


@dataclass(frozen=True)
class Reply:
    """One scripted answer of the server; build it with the class methods."""

    status: int = 200
    content: str | None = None
    body: bytes | None = None
    headers: tuple[tuple[str, str], ...] = ()
    delay_s: float = 0.0
    top_logprobs: tuple[tuple[str, float], ...] = ()
    finish_reason: str = "stop"
    disconnect: bool = False

    @classmethod
    def chat(
        cls,
        content: str,
        *,
        top_logprobs: Mapping[str, float] | None = None,
        delay_s: float = 0.0,
        finish_reason: str = "stop",
    ) -> Reply:
        """A normal completion; top_logprobs (token → logprob) is returned if the request asks."""
        return cls(
            content=content,
            top_logprobs=tuple((top_logprobs or {}).items()),
            delay_s=delay_s,
            finish_reason=finish_reason,
        )

    @classmethod
    def error(
        cls, status: int, *, retry_after: str | None = None, message: str = "scripted error"
    ) -> Reply:
        """An OpenAI-style error body with the given status and optional Retry-After header."""
        headers = (("Retry-After", retry_after),) if retry_after is not None else ()
        body = json.dumps({"error": {"message": message, "type": "scripted", "code": status}})
        return cls(status=status, body=body.encode(), headers=headers)

    @classmethod
    def raw(
        cls, body: bytes | str, *, status: int = 200, content_type: str = "application/json"
    ) -> Reply:
        """Exactly these bytes as the body (garbage, truncated JSON, HTML...)."""
        data = body.encode() if isinstance(body, str) else body
        return cls(status=status, body=data, headers=(("Content-Type", content_type),))

    @classmethod
    def json(cls, payload: Any, *, status: int = 200) -> Reply:
        """Any JSON value as the body (e.g. a completion with no choices)."""
        return cls.raw(json.dumps(payload, ensure_ascii=False), status=status)

    @classmethod
    def hang(cls, delay_s: float, content: str = "late answer") -> Reply:
        """A completion sent only after delay_s seconds, to provoke client timeouts."""
        return cls.chat(content, delay_s=delay_s)

    @classmethod
    def drop(cls) -> Reply:
        """Close the connection without sending any response."""
        return cls(disconnect=True)


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    received_at: float = field(repr=False)

    @property
    def json(self) -> Any:
        """The body decoded as JSON."""
        return json.loads(self.body)


def completion_body(reply: Reply, request_json: Any) -> dict[str, Any]:
    """The chat-completions JSON for a scripted content reply, as OpenAI shapes it."""
    asked = request_json if isinstance(request_json, dict) else {}
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": reply.content},
        "finish_reason": reply.finish_reason,
        "logprobs": None,
    }
    if asked.get("logprobs") and reply.content is not None:
        candidates = dict(reply.top_logprobs)
        first = reply.content
        first_logprob = candidates.get(first, max(candidates.values(), default=0.0))
        ranked = sorted(candidates.items(), key=lambda item: item[1], reverse=True)
        ranked = ranked[: int(asked.get("top_logprobs") or 0)]
        choice["logprobs"] = {
            "content": [
                {
                    "token": first,
                    "logprob": first_logprob,
                    "bytes": list(first.encode()),
                    "top_logprobs": [
                        {"token": token, "logprob": logprob, "bytes": list(token.encode())}
                        for token, logprob in ranked
                    ],
                }
            ]
        }
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": asked.get("model", "scripted"),
        "choices": [choice],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def stream_body(reply: Reply, request_json: Any) -> bytes:
    """The completion as OpenAI streams it: server-sent chunk events, then [DONE]."""
    whole = completion_body(reply, request_json)
    content = reply.content or ""
    base = {k: whole[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}

    def event(choices: list[dict[str, Any]], **extra: Any) -> str:
        return f"data: {json.dumps({**base, 'choices': choices, **extra}, ensure_ascii=False)}\n\n"

    events = [event([{"index": 0, "delta": {"role": "assistant", "content": ""}}])]
    for start in range(0, len(content), STREAM_PIECE_CHARS):
        piece = content[start : start + STREAM_PIECE_CHARS]
        events.append(event([{"index": 0, "delta": {"content": piece}, "finish_reason": None}]))
    events.append(event([{"index": 0, "delta": {}, "finish_reason": reply.finish_reason}]))
    options = request_json.get("stream_options") if isinstance(request_json, dict) else None
    if isinstance(options, dict) and options.get("include_usage"):
        events.append(event([], usage=whole["usage"]))
    events.append("data: [DONE]\n\n")
    return "".join(events).encode()


class LLMServer:
    """A ThreadingHTTPServer on 127.0.0.1:<ephemeral> serving POST /v1/chat/completions
    (streamed as server-sent events when the request says `stream: true`) and GET /v1/models."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._script: deque[Reply] = deque()
        self._then: Reply | None = None
        self._requests: list[RecordedRequest] = []
        self._stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.llm = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The base URL a client is configured with (requests go to {base_url}/chat/completions)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def script(self, *replies: Reply, then: Reply | None = None) -> None:
        """Answer the next requests with replies in order, then with `then` forever.

        Without `then`, a request beyond the script gets a 500 saying the script ran out.
        """
        with self._lock:
            self._script = deque(replies)
            self._then = then

    def clear(self) -> None:
        """Forget the script and the recorded requests."""
        with self._lock:
            self._script.clear()
            self._then = None
            self._requests.clear()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping in a scripted delay
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _record_and_pick(self, recorded: RecordedRequest) -> Reply:
        with self._lock:
            self._requests.append(recorded)
            if self._script:
                return self._script.popleft()
            if self._then is not None:
                return self._then
        return Reply.error(500, message="llm_server: no scripted reply left")

    def _wait(self, seconds: float) -> None:
        self._stopping.wait(seconds)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    llm: LLMServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the per-request log lines on stderr."""

    def do_POST(self) -> None:
        self._serve()

    def do_GET(self) -> None:
        self._serve()

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        recorded = RecordedRequest(
            method=self.command,
            path=self.path,
            headers={name.lower(): value for name, value in self.headers.items()},
            body=body,
            received_at=time.monotonic(),
        )
        llm = self.server.llm
        if self.command == "GET" and self.path == MODELS_PATH:
            with llm._lock:
                llm._requests.append(recorded)
            listed = [{"id": name, "object": "model", "created": 0, "owned_by": "scripted"}
                      for name in MODEL_IDS]  # fmt: skip
            self._send(Reply.json({"object": "list", "data": listed}), None)
            return
        if self.command != "POST" or self.path != CHAT_PATH:
            with llm._lock:
                llm._requests.append(recorded)
            self._send(Reply.error(404, message=f"no route {self.command} {self.path}"), None)
            return
        reply = llm._record_and_pick(recorded)
        if reply.delay_s:
            llm._wait(reply.delay_s)
        try:
            request_json = json.loads(body)
        except ValueError:
            request_json = None
        self._send(reply, request_json)

    def _send(self, reply: Reply, request_json: Any) -> None:
        if reply.disconnect:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        headers = dict(reply.headers)
        if reply.body is not None:
            data = reply.body
        elif isinstance(request_json, dict) and request_json.get("stream") is True:
            data = stream_body(reply, request_json)
            headers.setdefault("Content-Type", "text/event-stream")
        else:
            data = json.dumps(completion_body(reply, request_json), ensure_ascii=False).encode()
        headers.setdefault("Content-Type", "application/json")
        try:
            self.send_response(reply.status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
            self.close_connection = True


@pytest.fixture
def llm_server() -> Iterator[LLMServer]:
    """A started loopback chat-completions server with an empty script, stopped afterwards."""
    server = LLMServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def llm_down_url() -> Iterator[str]:
    """A base URL whose port is bound but not listening: every connection is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{holder.getsockname()[1]}/v1"
