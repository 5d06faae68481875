"""Load with nothing lost: 500 gate requests at concurrency 64 on `lexgate serve --workers 2`."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from benchmarks.soak import check_records, gate_bodies, make_key, send_gates, serve
from tests.reliability.conftest import audit_counts

REQUESTS = 500
CONCURRENCY = 64


@pytest.mark.parametrize("workers", [2], ids=["2-workers"])
def test_every_gate_request_is_recorded_whole(
    gate_database_url: str, tmp_path: Path, workers: int
) -> None:
    """N gate requests from 64 clients to 2 worker processes: N 200s, exactly N whole records."""
    key = make_key(gate_database_url)
    before = audit_counts(gate_database_url)
    with serve(gate_database_url, tmp_path, workers=workers) as server:
        replies = send_gates(server.url, key, gate_bodies(REQUESTS), CONCURRENCY)
    statuses = Counter(reply.status for reply in replies)
    assert statuses == {200: REQUESTS}, statuses
    records = check_records(gate_database_url, replies)
    assert (records.recorded, records.lost, records.half_written) == (REQUESTS, [], [])
    cases, attempts, citations = audit_counts(gate_database_url)
    reported = sum(reply.body["counts"]["citations"] for reply in replies if reply.body)  # type: ignore[index]
    assert (cases - before[0], attempts - before[1], citations - before[2]) == (
        REQUESTS,
        REQUESTS,
        reported,
    )
    assert reported > REQUESTS  # real answers: several citations each
