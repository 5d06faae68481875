"""Load on POST /api/v1/check: real answers, N concurrent clients, a real multi-worker server.

    .venv/bin/python benchmarks/web_load.py [--clients 32] [--seconds 30] [--workers 2]
                                            [--tool wrk|httpx]

Starts `lexgate serve --workers W` on a free loopback port over LEXGATE_DATABASE_URL (default
the embedded SQLite database of `make run`; run `lexgate db init` first), creates a checker key
(revoked at the end), warms up, then keeps `clients` connections posting the answers of
flzx_dev_answers.jsonl in turn (as of 2023-08-01) for `seconds`, with wrk (Debian's `wrk`, the
default when installed; benchmarks/web_load.lua) or with asyncio httpx clients. Prints
requests/s, latency percentiles and errors (any status but 200, any transport error). The load
generator runs on the same machine as the server and takes CPU from it.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from sqlalchemy.orm import Session

from legaldb import make_engine
from lexgate.settings import Settings
from web import create_key, revoke_key

SHARED = Path(os.environ.get("LEXGATE_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))
ANSWERS = SHARED / "eval" / "flzx_dev_answers.jsonl"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start(database_url: str, port: int, workers: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "LEXGATE_DATABASE_URL": database_url}
    command = [str(Path(sys.executable).parent / "lexgate"), "serve", "--port", str(port),
               "--workers", str(workers)]  # fmt: skip
    # The access log goes to a file: a pipe nobody reads would block the server.
    log = tempfile.TemporaryFile()  # noqa: SIM115 (open while the server runs)
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(
                f"lexgate serve exited: {server.stderr.read().decode() if server.stderr else ''}"
            )
        try:
            ready = httpx.get(f"http://127.0.0.1:{port}/api/v1/readyz", timeout=2)
            if ready.status_code == 200:
                return server
            if ready.json().get("error", {}).get("code") == "no_statutes":
                server.terminate()
                raise SystemExit("the database holds no statutes: run `lexgate db init` first")
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    server.terminate()
    raise SystemExit("the server did not become ready in 180 s")


async def _load(
    url: str, key: str, bodies: list[dict[str, str]], clients: int, seconds: float
) -> tuple[list[float], int, dict[str, int], float]:
    """(latencies of successful requests in s, requests sent, errors by kind, elapsed s)."""
    next_body = itertools.cycle(bodies)
    latencies: list[float] = []
    errors: dict[str, int] = {}
    sent = 0
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, headers={"X-API-Key": key}, limits=limits,
                                 timeout=30) as http:  # fmt: skip
        started = time.perf_counter()
        deadline = started + seconds

        async def client() -> None:
            nonlocal sent
            while time.perf_counter() < deadline:
                body = next(next_body)
                begun = time.perf_counter()
                sent += 1
                try:
                    response = await http.post("/api/v1/check", json=body)
                except httpx.HTTPError as error:
                    errors[type(error).__name__] = errors.get(type(error).__name__, 0) + 1
                    continue
                if response.status_code == 200:
                    latencies.append(time.perf_counter() - begun)
                else:
                    errors[str(response.status_code)] = errors.get(str(response.status_code), 0) + 1

        await asyncio.gather(*(client() for _ in range(clients)))
        elapsed = time.perf_counter() - started
    return latencies, sent, errors, elapsed


def _wrk(
    url: str, key: str, bodies: list[dict[str, str]], clients: int, seconds: float
) -> dict[str, float]:
    """Run wrk with benchmarks/web_load.lua; its JSON summary (latencies in microseconds)."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8", delete=False) as out:
        for body in bodies:
            out.write(json.dumps(body, ensure_ascii=False) + "\n")
    env = {**os.environ, "LEXGATE_WRK_BODIES": out.name, "LEXGATE_WRK_KEY": key}
    script = Path(__file__).with_name("web_load.lua")
    threads = str(min(clients, os.cpu_count() or 1))
    command = ["wrk", "-t", threads, "-c", str(clients), "-d", f"{seconds:.0f}s", "--timeout", "30s",
               "-s", str(script), f"{url}/"]  # fmt: skip
    try:
        run = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    finally:
        os.unlink(out.name)
    line = next(x for x in run.stdout.splitlines() if x.startswith("WRK_RESULT "))
    result: dict[str, float] = json.loads(line.removeprefix("WRK_RESULT "))
    return result


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of untimed load first")
    parser.add_argument("--database-url", default=Settings().database_url)
    parser.add_argument(
        "--tool", choices=["wrk", "httpx"], default="wrk" if shutil.which("wrk") else "httpx"
    )
    args = parser.parse_args()

    answers = [
        json.loads(line)["answer"] for line in ANSWERS.read_text(encoding="utf-8").splitlines()
    ]
    bodies = [{"answer": a, "as_of": "2023-08-01"} for a in answers if a.strip()]
    engine = make_engine(args.database_url)
    with Session(engine) as session:
        made = create_key(session, "checker", name="web_load benchmark")
    port = _free_port()
    server = _start(args.database_url, port, args.workers)
    url = f"http://127.0.0.1:{port}"
    try:
        asyncio.run(_load(url, made.key, bodies, args.clients, args.warmup))
        if args.tool == "wrk":
            summary = _wrk(url, made.key, bodies, args.clients, args.seconds)
        else:
            latencies, sent, errors, elapsed = asyncio.run(
                _load(url, made.key, bodies, args.clients, args.seconds)
            )
    finally:
        server.terminate()
        server.wait(timeout=30)
        with Session(engine) as session:
            revoke_key(session, made.info.key_id)
        engine.dispose()

    print(f"server: lexgate serve --workers {args.workers} over {engine.url.get_backend_name()}; "
          f"{args.tool}, {args.clients} connections for {args.seconds:.0f} s; {len(bodies)} real "
          f"answers (mean {statistics.mean(len(b['answer']) for b in bodies):.0f} characters); "
          f"{os.cpu_count()} cores shared with the load generator")  # fmt: skip
    if args.tool == "wrk":
        failed = sum(int(summary[k]) for k in ("connect", "read", "write", "status", "timeout"))
        print(
            f"requests: {summary['requests']:.0f}, errors: {failed} "
            f"(non-200: {summary['status']:.0f}, timeouts: {summary['timeout']:.0f})"
        )
        print(f"throughput: {summary['requests'] / (summary['duration_us'] / 1e6):.0f} requests/s")
        print(
            f"latency ms: p50 {summary['p50_us'] / 1000:.1f}, p90 {summary['p90_us'] / 1000:.1f}, "
            f"p99 {summary['p99_us'] / 1000:.1f}, max {summary['max_us'] / 1000:.1f}"
        )
        return
    ms = [1000 * value for value in latencies]
    print(
        f"requests: {sent}, succeeded: {len(latencies)}, errors: {sum(errors.values())} {errors or ''}"
    )
    print(f"throughput: {len(latencies) / elapsed:.0f} requests/s")
    if ms:
        print(f"latency ms: p50 {_percentile(ms, 0.50):.1f}, p90 {_percentile(ms, 0.90):.1f}, "
              f"p99 {_percentile(ms, 0.99):.1f}, max {max(ms):.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
