"""The gateway's own overhead per completion, with an upstream that answers at once.

    python -m benchmarks.gateway_bench [--clients 32] [--requests 2000] [--workers 2]
                                       [--max-attempts 1] [--url sqlite:///…|postgresql+psycopg://…]

Starts an instant upstream (a bare ASGI chat-completions app under uvicorn, answering each
request with the real answer of flzx_dev_answers.jsonl its last message names) and `lexgate
gateway --workers W` in front of it, over a fresh SQLite database holding the bundled corpus
(or --url). Then `clients` concurrent asyncio httpx clients send `requests` completions, first
to the upstream directly, then through the gateway (each after an untimed warm-up), the same
answers in the same order. The gateway's overhead is the difference of the two latencies: the
gate (check, decision), the audit record, the API key and the second HTTP hop. With
--max-attempts 1 every completion is one upstream answer gated and recorded; with the default
policy's 3, answers the gate reruns cost one more upstream call and gate each. Server, upstream
and load generator share the machine's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy.orm import Session

from benchmarks.common import ANSWERS, fresh_database, percentile, timed_post
from legaldb import make_engine
from web import create_key

_ANSWERS: list[str] = []


def _answers() -> list[str]:
    if not _ANSWERS:
        lines = ANSWERS.read_text(encoding="utf-8").splitlines()
        _ANSWERS.extend(a for a in (json.loads(line)["answer"] for line in lines) if a.strip())
    return _ANSWERS


async def upstream_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An instant chat-completions server: answer N of the data set for a last message "N"."""
    if scope["type"] == "lifespan":
        while (message := await receive())["type"] != "lifespan.shutdown":
            if message["type"] == "lifespan.startup":
                _answers()
                await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    if scope["method"] != "POST":  # the readiness probe
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    request = json.loads(body)
    answers = _answers()
    number = int(request["messages"][-1]["content"].rsplit("#", 1)[-1])
    payload = {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model", "instant"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": answers[number % len(answers)]},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 100, "total_tokens": 110},
    }
    data = json.dumps(payload, ensure_ascii=False).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start(command: list[str], env: dict[str, str], ready_url: str) -> subprocess.Popen[bytes]:
    log = tempfile.TemporaryFile()  # noqa: SIM115 (open while the server runs)
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            raise SystemExit(f"{command[0]} exited: {log.read().decode()[-2000:]}")
        try:
            if httpx.get(ready_url, timeout=2).status_code < 500:
                return process
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    process.terminate()
    log.seek(0)
    raise SystemExit(f"{command[0]} not ready in 180 s: {log.read().decode()[-2000:]}")


async def _load(
    url: str, key: str, numbers: list[int], clients: int
) -> tuple[list[float], dict[str, int], float]:
    """(latencies of the 200s in s, errors by kind, elapsed s) of one completion per number."""
    queue = iter(numbers)
    latencies: list[float] = []
    errors: dict[str, int] = {}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, limits=limits,
                                 timeout=60) as http:  # fmt: skip

        async def client() -> None:
            for number in queue:
                body = {
                    "model": "instant",
                    "messages": [{"role": "user", "content": f"问题 #{number}"}],
                }
                await timed_post(http, "/chat/completions", body, latencies, errors)

        started = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        elapsed = time.perf_counter() - started
    return latencies, errors, elapsed


def _report(name: str, latencies: list[float], errors: dict[str, int], elapsed: float) -> None:
    ms = [1000 * value for value in latencies]
    print(f"{name}: {len(ms)} completions, {len(ms) / elapsed:.0f}/s, errors {errors or 0}; "
          f"latency ms p50 {percentile(ms, 0.5):.1f}, p90 {percentile(ms, 0.9):.1f}, "
          f"p99 {percentile(ms, 0.99):.1f}, max {max(ms):.1f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=400, help="untimed completions first")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-attempts", type=int, default=1)
    parser.add_argument("--url", help="a database holding the corpus (default: a fresh SQLite)")
    args, _ = parser.parse_known_args()  # python -m benchmarks passes its own argv
    url = args.url or fresh_database("lexgate-gateway-bench-")
    engine = make_engine(url)
    with Session(engine) as session:
        key = create_key(session, "checker", name="gateway-bench").key
    engine.dispose()
    private = Path(tempfile.mkdtemp(prefix="lexgate-gateway-bench-private-"))
    upstream_port, gateway_port = _free_port(), _free_port()
    upstream_url = f"http://127.0.0.1:{upstream_port}/v1"
    gateway_url = f"http://127.0.0.1:{gateway_port}/v1"
    env = {
        **os.environ,
        "LEXGATE_DATABASE_URL": url,
        "LEXGATE_AUDIT_SECRET": "the gateway benchmark's own secret",
        "LEXGATE_MAPPING_STORE_PATH": str(private / "pseudonym-map.sqlite3"),
        "LEXGATE_WEB_ROUND_STORE_PATH": str(private / "open-rounds.sqlite3"),
        "LEXGATE_GATEWAY_UPSTREAM_URL": upstream_url,
        "LEXGATE_GATEWAY_MAX_ATTEMPTS": str(args.max_attempts),
    }
    bin_dir = Path(sys.executable).parent
    upstream = _start(
        [str(bin_dir / "uvicorn"), "benchmarks.gateway_bench:upstream_app", "--port",
         str(upstream_port), "--log-level", "warning", "--no-access-log"],
        env, f"{upstream_url}/chat/completions",
    )  # fmt: skip
    gateway = _start(
        [str(bin_dir / "lexgate"), "gateway", "--port", str(gateway_port), "--workers",
         str(args.workers)],
        env, f"http://127.0.0.1:{gateway_port}/api/v1/readyz",
    )  # fmt: skip
    count = len(_answers())
    warm = list(range(args.warmup))
    timed = [n % count for n in range(args.warmup, args.warmup + args.requests)]
    try:
        results = {}
        for name, base in (
            ("upstream directly", upstream_url),
            ("through the gateway", gateway_url),
        ):
            asyncio.run(_load(base, key, warm, args.clients))
            results[name] = asyncio.run(_load(base, key, timed, args.clients))
    finally:
        for process in (gateway, upstream):
            process.terminate()
            process.wait(timeout=30)
    print(f"lexgate gateway --workers {args.workers}, max_attempts {args.max_attempts}, over "
          f"{make_engine(url).url.get_backend_name()}; {args.clients} concurrent clients, "
          f"{args.requests} completions after {args.warmup} untimed; {os.cpu_count()} cores "
          f"shared by upstream, gateway and load generator; load average "
          f"{os.getloadavg()[0]:.1f}")  # fmt: skip
    for name, (latencies, errors, elapsed) in results.items():
        _report(name, latencies, errors, elapsed)
    direct, gated = results["upstream directly"][0], results["through the gateway"][0]
    print(
        "gateway overhead ms (gateway minus direct): "
        f"p50 {1000 * (percentile(gated, 0.5) - percentile(direct, 0.5)):.1f}, "
        f"p99 {1000 * (percentile(gated, 0.99) - percentile(direct, 0.99)):.1f}"
    )


if __name__ == "__main__":
    main()
