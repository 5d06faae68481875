"""Instructions of the server's whole POST /api/v1/gate per request, in process (callgrind).

The app of `lexgate serve` (`create_app`) on a copy of `lexgate db init`'s database (SQLite,
with the private files) or, with --backend postgresql, on an embedded PostgreSQL holding the
corpus (imported, not counted), driven over ASGI by a minimal driver (no HTTP, no TestClient):
the lifespan's start, --warm answers gated uncounted (answers after the counted ones), then
the first --answers flzx answers gated as the soak sends them (each its own subject, a fixed
id; no session id: each starts a new round), --concurrency at a time (8: gated in one turn of
the event loop, they are written in one transaction, as the soak's 64 clients make batches of
about 10), counted under `valgrind --tool=callgrind --collect-atstart=no` with
CALLGRIND_TOGGLE_COLLECT around the request loop only, and in the writer thread around each of
its batches during the loop (callgrind switches collection per thread; each reply leaves after
its commit, so the loop holds the writes). Everything the server does for a request is
counted: the direct route, the key, the body, the round store, the check, `gate.assess`, the
audit rows and their write, the mapping store, the response's validation and JSON, the
middleware. PYTHONHASHSEED=0; the counts do not depend on the machine's load.

--out DIR writes the replies (case ids as their order of first appearance) and `--dump` of
`benchmarks.write_bench` (every stored row, stable) to compare two checkouts byte for byte.
The process runs the current directory's checkout (PYTHONPATH=. first on sys.path):

    python -m benchmarks.web_gate_callgrind [--backend postgresql] [--answers 200] [--out DIR]
    cd OLD && PYTHONPATH=. /work/wt/.venv/bin/python /work/wt/benchmarks/web_gate_callgrind.py \
        --database /work/wt/var/lexgate.sqlite3 --cache-dir /work/wt/var/cache
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HELPER = "#include <valgrind/callgrind.h>\nvoid toggle(void) { CALLGRIND_TOGGLE_COLLECT; }\n"
AUDIT_SECRET = "the gate callgrind benchmark's secret!"
STORE_KEY = "wgc1:c29hay1zdG9yZS1rZXktb2YtMzItYnl0ZXMtbG9uZyE="
AS_OF = "2023-08-01"


class Driver:
    """Requests through an ASGI app in this event loop, as a server sends them (no sockets)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._shutdown = asyncio.Event()
        self._lifespan: asyncio.Task[None] | None = None

    async def start(self) -> None:
        started = asyncio.Event()
        messages = iter([{"type": "lifespan.startup"}])

        async def receive() -> dict[str, Any]:
            message = next(messages, None)
            if message is not None:
                return message
            await self._shutdown.wait()
            return {"type": "lifespan.shutdown"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "lifespan.startup.complete":
                started.set()
            elif message["type"].endswith("failed"):
                raise SystemExit(f"lifespan: {message}")

        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        self._lifespan = asyncio.create_task(self.app(scope, receive, send))
        await started.wait()

    async def stop(self) -> None:
        self._shutdown.set()
        if self._lifespan is not None:
            await self._lifespan

    async def post(self, path: str, body: bytes, key: str) -> tuple[int, bytes]:
        scope = {
            "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1", "method": "POST", "scheme": "http", "path": path,
            "raw_path": path.encode(), "query_string": b"", "root_path": "",
            "headers": [
                (b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"authorization", f"Bearer {key}".encode()),
            ],
            "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000), "state": {},
        }  # fmt: skip
        sent = False
        status, chunks = 0, []

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # the client stays connected
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, send)
        return status, b"".join(chunks)


def _bodies(start: int, count: int, tag: str) -> list[bytes]:
    from benchmarks.common import ANSWERS

    lines = ANSWERS.read_text(encoding="utf-8").splitlines()[start : start + count]
    bodies = []
    for n, line in enumerate(lines, start):
        item = json.loads(line)
        body = {"answer": item["answer"], "subject_id": f"{tag}-subject-{n}", "as_of": AS_OF}
        if (item.get("question") or "").strip():
            body["question"] = item["question"]
        bodies.append(json.dumps(body, ensure_ascii=False).encode())
    return bodies


def _stable_replies(replies: list[bytes]) -> str:
    """The replies as JSON lines, each case id replaced by its order of first appearance and
    the new sessions' random ids blanked."""
    cases: dict[str, str] = {}

    def case(match: re.Match[str]) -> str:
        return f'"case_id":"{cases.setdefault(match.group(1), f"<case {len(cases)}>")}"'

    return "".join(
        re.sub(r"web-[0-9a-f]{32}", "web-<session>", re.sub(r'"case_id":"([^"]+)"', case, r)) + "\n"
        for r in (reply.decode() for reply in replies)
    )


def one_pass(args: argparse.Namespace, toggle: Callable[[], Any] | None) -> None:
    """Start the app, gate the warm-up answers, then the counted ones (toggled)."""
    sys.path.insert(0, os.getcwd())
    from pydantic import SecretStr
    from sqlalchemy.orm import Session

    from benchmarks.soak import OwnPostgres
    from benchmarks.write_bench import dump
    from legaldb import import_corpus, make_engine, read_repealed, upgrade
    from legaldb.corpus import read_statutes
    from lexgate.settings import Settings
    from web import create_app, create_key

    workdir = Path(tempfile.mkdtemp(prefix="web-gate-cg-"))
    postgres = None
    try:
        if args.backend == "sqlite":
            with (
                sqlite3.connect(Path(args.database).resolve()) as src,
                sqlite3.connect(workdir / "lexgate.sqlite3") as dst,
            ):
                src.backup(dst)
            url = f"sqlite:///{workdir / 'lexgate.sqlite3'}"
        else:
            postgres = OwnPostgres(workdir)
            url = postgres.create_database("webgatecg")
            upgrade(url)
            engine = make_engine(url)
            repealed = read_repealed()
            import_corpus(engine, read_statutes(repealed=repealed), repealed=repealed)
            engine.dispose()
        engine = make_engine(url)
        with Session(engine) as session:
            key = create_key(session, "checker", name="web-gate-callgrind").key
        settings = Settings(
            database_url=url,
            cache_dir=Path(args.cache_dir).resolve(),
            audit_secret=SecretStr(AUDIT_SECRET),
            store_key=SecretStr(STORE_KEY),
            mapping_store_path=workdir / "pseudonym-map.sqlite3",
            web_round_store_path=workdir / "rounds.sqlite3",
        )
        app = create_app(settings)
        counting = [False]
        if toggle is not None:  # callgrind's collection is switched per thread: the writer's too
            writer = app.state.record_writer
            write_many = writer._write_many

            def counted(items: Any) -> Any:
                if not counting[0]:
                    return write_many(items)
                toggle()
                try:
                    return write_many(items)
                finally:
                    toggle()

            writer._write_many = counted
        driver = Driver(app)
        warm = _bodies(args.answers, args.warm, "warm")
        requests = _bodies(0, args.answers, "gate")

        async def run() -> list[bytes]:
            await driver.start()
            for body in warm:
                status, reply = await driver.post("/api/v1/gate", body, key)
                if status != 200:
                    raise SystemExit(f"warm-up: {status} {reply[:300]!r}")
            replies = []
            counting[0] = True
            if toggle is not None:
                toggle()
            for start in range(0, len(requests), args.concurrency):
                together = requests[start : start + args.concurrency]
                replies += await asyncio.gather(
                    *(driver.post("/api/v1/gate", body, key) for body in together)
                )
            if toggle is not None:
                toggle()
            counting[0] = False
            await driver.stop()
            failed = [(s, r[:300]) for s, r in replies if s != 200]
            if failed:
                raise SystemExit(f"{len(failed)} gates failed: {failed[0]!r}")
            return [reply for _, reply in replies]

        replies = asyncio.run(run())
        text = _stable_replies(replies)
        if args.out:
            out = Path(args.out)
            out.mkdir(parents=True, exist_ok=True)
            (out / f"replies-{args.backend}.jsonl").write_text(text, encoding="utf-8")
            dump(engine, workdir, out / f"rows-{args.backend}.txt", {})
        print(f"replies sha256 {hashlib.sha256(text.encode()).hexdigest()[:16]}", flush=True)
        engine.dispose()
    finally:
        if postgres is not None:
            postgres.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--answers", type=int, default=200, help="the first N answers, counted")
    parser.add_argument(
        "--concurrency", type=int, default=8, help="requests sent together (one write batch)"
    )
    parser.add_argument("--warm", type=int, default=30, help="answers gated first, uncounted")
    parser.add_argument("--database", default="var/lexgate.sqlite3", help="statutes (copied)")
    parser.add_argument("--cache-dir", default="var/cache")
    parser.add_argument("--out", help="write the replies and the stored rows (stable) here")
    parser.add_argument("--plain", action="store_true", help="no callgrind (the outputs only)")
    parser.add_argument("--cg-out", help="keep callgrind's profile in this file")
    parser.add_argument("--toggle-library", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.toggle_library:
        one_pass(args, ctypes.CDLL(args.toggle_library).toggle)
        return
    if args.plain:
        one_pass(args, None)
        return
    with tempfile.TemporaryDirectory(prefix="web-gate-cg-") as folder:
        source, library = Path(folder) / "toggle.c", Path(folder) / "toggle.so"
        source.write_text(HELPER)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", library, source], check=True)
        profile = args.cg_out or f"{folder}/gate.cg"
        forwarded = [a for a in sys.argv[1:] if not a.startswith("--cg-out")]
        if args.cg_out and args.cg_out in forwarded:
            forwarded.remove(args.cg_out)
        command = [
            "valgrind", "--tool=callgrind", "--collect-atstart=no",
            f"--callgrind-out-file={profile}",
            sys.executable, str(Path(__file__).resolve()), *forwarded,
            "--toggle-library", str(library),
        ]  # fmt: skip
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": os.getcwd()}
        env.pop("PYTHONUNBUFFERED", None)
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        if done.returncode:
            sys.exit(f"the pass under callgrind failed:\n{done.stderr[-3000:]}")
        print(done.stdout.strip())
        collected = re.search(r"Collected : (\d+)", done.stderr)
        count = int(collected.group(1)) if collected else -1
        print(
            f"{args.backend}: {args.answers} POST /api/v1/gate: {count:,} instructions = "
            f"{count // max(args.answers, 1):,} per request"
        )


if __name__ == "__main__":
    main()
