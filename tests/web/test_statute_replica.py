"""LEXGATE_STATUTE_DATABASE_URL: the workers read the statutes from a read replica while keys
and audit records stay on the primary (both backends)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session

from legaldb import make_engine
from tests.web.conftest import THREE_CITATIONS, bearer, client_for
from tests.web.recorded import gate_settings
from web import create_key


def test_statutes_come_from_the_replica(
    migrated_url: str, corpus_database_url: str, tmp_path: Path
) -> None:
    """A primary without statutes and a replica with them: checks verify against the replica's
    statutes; the key is read from the primary; the gate's record is written to the primary."""
    engine = make_engine(migrated_url)
    try:
        with Session(engine) as session:
            key = create_key(session, "checker", name="replica").key
        settings = gate_settings(migrated_url, tmp_path).model_copy(
            update={"statute_database_url": corpus_database_url}
        )
        with client_for(settings) as client:
            checked = client.post("/api/v1/check", json={"answer": THREE_CITATIONS,
                                  "as_of": "2024-01-01"}, headers=bearer(key))  # fmt: skip
            gated = client.post("/api/v1/gate", json={"answer": THREE_CITATIONS,
                                "as_of": "2024-01-01"}, headers=bearer(key))  # fmt: skip
        assert checked.status_code == 200, checked.text
        statuses = [c["status"] for c in checked.json()["citations"]]
        assert statuses == ["verified", "deprecated", "unverified"]
        assert gated.status_code == 200, gated.text
        with engine.connect() as connection:
            recorded = connection.exec_driver_sql("SELECT count(*) FROM audit_case").scalar()
        assert recorded == 1
    finally:
        engine.dispose()
