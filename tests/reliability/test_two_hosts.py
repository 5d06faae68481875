"""Two hosts sharing one PostgreSQL: two `lexgate serve` processes, each with its own home and
working directory (nothing shared but the database and the keys), behind no proxy.

A round started on one host continues on the other; 1,000 gates spread over both are exactly
1,000 recorded answers; a host killed (SIGKILL) mid-way and started again loses nothing: the
rounds it opened continue on the other host, and the rounds the other opened continue on it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from audit.tables import CASE_TABLE
from benchmarks.soak import Server, free_port, gate_bodies, make_key, serve
from legaldb import make_engine
from tests.reliability.conftest import audit_counts
from tests.web.conftest import THREE_CITATIONS, VERIFIED
from web.tables import OPEN_ROUND_TABLE

QUESTION = "离婚时共同财产怎么分？对方违约怎么办？"
GOOD_ANSWER = f"依照{VERIFIED}，离婚时，夫妻的共同财产由双方协议处理。"
ROUNDS_PER_HOST = 50  # rounds opened on each host and continued on the other
PLAIN = (350, 150, 300)  # one-answer gates in the three phases
THREADS = 16

pytestmark = pytest.mark.parametrize("gate_database_url", ["postgresql"], indirect=True)


@dataclass(frozen=True)
class Job:
    """One POST /api/v1/gate to one host."""

    host: str
    body: dict[str, Any]


@dataclass(frozen=True)
class Done:
    job: Job
    status: int
    reply: dict[str, Any]


def _run(jobs: list[Job], urls: dict[str, str], key: str) -> list[Done]:
    """Every job over HTTP from a thread pool; each host its own keep-alive client."""
    clients = {
        name: httpx.Client(base_url=url, headers={"X-API-Key": key}, timeout=60)
        for name, url in urls.items()
    }

    def send(job: Job) -> Done:
        response = clients[job.host].post("/api/v1/gate", json=job.body)
        return Done(job, response.status_code, response.json())

    try:
        with ThreadPoolExecutor(THREADS) as pool:
            return list(pool.map(send, jobs))
    finally:
        for client in clients.values():
            client.close()


def _opening(session: str) -> dict[str, Any]:
    return {"answer": THREE_CITATIONS, "question": QUESTION, "session_id": session,
            "as_of": "2024-01-01"}  # fmt: skip


def _second(session: str) -> dict[str, Any]:
    return {"answer": GOOD_ANSWER, "question": QUESTION, "session_id": session, "attempt": 2}


def _plain(count: int, hosts: tuple[str, ...]) -> Iterator[Job]:
    for i, body in enumerate(gate_bodies(count)):
        yield Job(hosts[i % len(hosts)], body)


def test_two_hosts_continue_each_others_rounds_and_lose_nothing(
    gate_database_url: str, tmp_path: Path
) -> None:
    """Phase 1 (both up): 50 rounds opened on each host, 350 one-answer gates over both.
    Host b is killed; phase 2 on a alone: b's rounds continued there, 150 gates. b started
    again in its own home: phase 3, a's rounds continued on b, 300 gates over both. Every
    reply 200; each continued round keeps its case; +1,000 answers, +900 cases, every citation."""
    url = gate_database_url
    key = make_key(url)
    before = audit_counts(url)
    homes = {name: tmp_path / f"host-{name}" for name in ("a", "b")}
    for home in homes.values():
        home.mkdir()
    b_port = free_port()
    with ExitStack() as stack:

        def start(name: str, port: int | None = None) -> Server:
            home = homes[name]
            return stack.enter_context(serve(url, home, workers=1, home=home, port=port))

        a, b = start("a"), start("b", b_port)
        urls = {"a": a.url, "b": b.url}
        opened = {f"ra-{i}": "a" for i in range(ROUNDS_PER_HOST)}
        opened |= {f"rb-{i}": "b" for i in range(ROUNDS_PER_HOST)}
        phase1 = [Job(host, _opening(session)) for session, host in opened.items()]
        phase1 += list(_plain(PLAIN[0], ("a", "b")))
        done = _run(phase1, urls, key)

        b.process.kill()  # SIGKILL: no shutdown, mid-way through the load
        b.process.wait()
        phase2 = [Job("a", _second(s)) for s, host in opened.items() if host == "b"]
        phase2 += list(_plain(PLAIN[1], ("a",)))
        done += _run(phase2, urls, key)

        urls["b"] = start("b", b_port).url
        phase3 = [Job("b", _second(s)) for s, host in opened.items() if host == "a"]
        phase3 += list(_plain(PLAIN[2], ("a", "b")))
        done += _run(phase3, urls, key)

    assert len(done) == 1000
    assert Counter(d.status for d in done) == {200: 1000}, [
        d.reply for d in done if d.status != 200
    ][:3]
    cases = {d.job.body["session_id"]: d.reply["case_id"] for d in done[: 2 * ROUNDS_PER_HOST]}
    continued = [d for d in done if d.job.body.get("attempt") == 2]
    assert len(continued) == 2 * ROUNDS_PER_HOST
    for d in continued:
        assert (d.reply["attempt"], d.reply["round"]["state"]) == (2, "passed_after_rerun")
        assert d.reply["case_id"] == cases[d.job.body["session_id"]]
    assert {d.job.host for d in continued if d.job.body["session_id"].startswith("rb-")} == {"a"}
    assert {d.job.host for d in continued if d.job.body["session_id"].startswith("ra-")} == {"b"}

    cases_added, attempts_added, citations_added = (
        now - then for now, then in zip(audit_counts(url), before, strict=True)
    )
    reported = sum(d.reply["counts"]["citations"] for d in done)
    assert (attempts_added, cases_added, citations_added) == (1000, 900, reported)
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                sa.select(CASE_TABLE.c.attempt_count, CASE_TABLE.c.state).where(
                    CASE_TABLE.c.case_id.in_(list(cases.values()))
                )
            ).all()
            kept = connection.execute(
                sa.select(sa.func.count()).select_from(OPEN_ROUND_TABLE)
                .where(OPEN_ROUND_TABLE.c.case_id.in_(list(cases.values())))
            ).scalar_one()  # fmt: skip
    finally:
        engine.dispose()
    assert sorted((r.attempt_count, r.state) for r in rows) == [(2, "passed_after_rerun")] * 100
    assert kept == 0  # the ended rounds are no longer kept
