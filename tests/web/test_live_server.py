"""The real server (`lexgate serve`, uvicorn, h11) on loopback: bodies, keys, headers."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from tests.web.conftest import VERIFIED, LiveServer, free_port


def _raw_post(server: LiveServer, head: str, chunks: list[bytes]) -> bytes:
    """POST /api/v1/check over a plain socket (chunked), return the raw reply head and body."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(head.encode("ascii"))
        try:
            for chunk in chunks:
                sock.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            sock.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server may answer and close before the upload ends
        reply = b""
        while True:
            try:
                data = sock.recv(65536)
            except ConnectionResetError:
                break
            if not data:
                break
            reply += data
            if b"\r\n\r\n" in reply and reply.rstrip().endswith(b"}"):
                break
        return reply


@pytest.mark.parametrize("declared", [None, "100"], ids=["chunked", "chunked-with-false-length"])
def test_chunked_upload_over_the_limit_is_413(
    live_server: LiveServer, declared: str | None
) -> None:
    """300 KB sent in chunks is refused with 413; with a false Content-Length too (400 or 413)."""
    head = (
        "POST /api/v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {live_server.checker_key}\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
        + (f"Content-Length: {declared}\r\n" if declared else "")
        + "\r\n"
    )
    reply = _raw_post(live_server, head, [b'{"answer": "'] + [b"a" * 10_000] * 30 + [b'"}'])
    status_line = reply.split(b"\r\n", 1)[0]
    if declared is None:
        assert b" 413 " in status_line, reply[:300]
        assert b'"code":"body_too_large"' in reply
    else:  # httptools refuses Content-Length with chunked encoding itself (smuggling guard)
        assert status_line.split()[1] in (b"400", b"413"), reply[:300]


def test_real_server_checks_and_sends_headers(live_server: LiveServer) -> None:
    """A real request over TCP: the check, the CSP and the JSON error shape."""
    with httpx.Client(base_url=live_server.url, timeout=30) as client:
        ok = client.post(
            "/api/v1/check",
            json={"answer": VERIFIED, "as_of": "2024-01-01"},
            headers={"X-API-Key": live_server.checker_key},
        )
        assert ok.status_code == 200 and ok.json()["citations"][0]["badge"] == "现行有效"
        assert "default-src 'self'" in ok.headers["content-security-policy"]
        refused = client.post("/api/v1/check", json={"answer": VERIFIED})
        assert refused.status_code == 401
        assert refused.json()["error"]["code"] == "unauthorized"
        page = client.get("/", follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"] == "/login?next=/"


def test_idle_connections_outlive_uvicorns_default_keep_alive(live_server: LiveServer) -> None:
    """A connection idle for 6 s (uvicorn's own default closes it after 5 s) still takes the
    next request: LEXGATE_WEB_KEEP_ALIVE_S, 75 s by default, longer than a proxy's idle time."""
    import http.client
    import time

    connection = http.client.HTTPConnection("127.0.0.1", live_server.port, timeout=30)
    try:
        connection.request("GET", "/api/v1/healthz")
        first = connection.getresponse()
        assert first.status == 200 and first.read() == b'{"status":"ok"}'
        opened = connection.sock
        time.sleep(6)
        connection.request("GET", "/api/v1/healthz")  # closed by the server: RemoteDisconnected
        second = connection.getresponse()
        assert second.status == 200 and second.read() == b'{"status":"ok"}'
        assert connection.sock is opened  # the same connection, not a new one
    finally:
        connection.close()


def test_serve_says_when_it_is_up(live_database_url: str) -> None:
    """`lexgate serve` prints one framed "LexGate is up" notice once /readyz answers, after
    uvicorn's start-up lines, with the statute figures and where to look."""
    port = free_port()
    env = {**os.environ, "LEXGATE_DATABASE_URL": live_database_url, "COLUMNS": "80"}
    command = [str(Path(sys.executable).parent / "lexgate"), "serve", "--port", str(port)]
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    lines: list[str] = []
    watchdog = threading.Timer(180, process.kill)  # a server that never says so is stopped
    watchdog.start()
    try:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.rstrip())
            if "Ctrl-C stops" in line or len(lines) > 200:
                break
    finally:
        watchdog.cancel()
        process.terminate()
        process.wait(timeout=30)
    output = "\n".join(lines)
    assert f"LexGate is up: http://127.0.0.1:{port}/" in output, output
    assert re.search(r"[\d,]+ laws · [\d,]+ versions · [\d,]+ articles", output)
    assert output.index("Application startup complete") < output.index("LexGate is up")
