"""Hypothesis-generated answers through POST /check and /gate: never a 5xx, every gate recorded."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from tests.reliability.conftest import TestClient, audit_counts, bearer
from tests.strategies import hostile_answers

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


def test_check_never_fails(gate_client: TestClient, gate_keys: dict[str, str]) -> None:
    """Any answer text gets 200 (or 422 for an empty one) from POST /check, never a 5xx."""
    headers = bearer(gate_keys["checker"])

    @given(answer=hostile_answers)
    @SETTINGS
    def run(answer: str) -> None:
        response = gate_client.post("/api/v1/check", json={"answer": answer}, headers=headers)
        assert response.status_code in (200, 422), (response.status_code, response.text[:300])
        if response.status_code == 200:
            body = response.json()
            assert body["summary"]["total"] == len(body["citations"])

    run()


def test_gate_never_fails_and_records_each(
    gate_client: TestClient, gate_keys: dict[str, str], gate_database_url: str
) -> None:
    """Any answer through POST /gate: 200 with its audit record (or 422), never a 5xx."""
    headers = bearer(gate_keys["checker"])
    accepted = [0]
    before = audit_counts(gate_database_url)[0]

    @given(answer=hostile_answers)
    @SETTINGS
    def run(answer: str) -> None:
        response = gate_client.post("/api/v1/gate", json={"answer": answer}, headers=headers)
        assert response.status_code in (200, 422), (response.status_code, response.text[:300])
        accepted[0] += response.status_code == 200

    run()
    assert accepted[0] > 0
    assert audit_counts(gate_database_url)[0] - before == accepted[0]
