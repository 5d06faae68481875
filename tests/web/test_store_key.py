"""`lexgate store-key rotate`: stage, rotate and retire the keys sealing the private stores
kept in the database (both backends; PostgreSQL is where a deployment uses them)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.mapping_store import SEALED_IDS, DatabaseMappingStore
from audit.sealing import KeyRing, create_key_file, keys_in_use, read_key_file
from gate.rounds import open_round
from legaldb import make_engine, upgrade
from lexgate.cli import app
from lexgate.settings import get_settings
from web.rounds import SEALED_ROUNDS, DatabaseRoundStore


@pytest.fixture
def key_file(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A migrated database and a key file of one key; the settings name both."""
    upgrade(database_url)
    path = tmp_path / "store.key"
    create_key_file(path)
    monkeypatch.setenv("LEXGATE_DATABASE_URL", database_url)
    monkeypatch.setenv("LEXGATE_STORE_KEY_PATH", str(path))
    monkeypatch.delenv("LEXGATE_STORE_KEY", raising=False)
    get_settings.cache_clear()
    yield path
    get_settings.cache_clear()


def _rotate(*flags: str) -> str:
    result = CliRunner().invoke(app, ["store-key", "rotate", *flags])
    assert result.exit_code == 0, result.output
    return result.output


def test_stage_rotate_retire(key_file: Path, database_url: str) -> None:
    """Rows sealed under s1 stay readable through the three steps, end under s2 alone."""
    engine = make_engine(database_url)
    try:
        ring = KeyRing(read_key_file(key_file))
        mappings = DatabaseMappingStore(engine, ring)
        mappings.record_many([(f"sess_k1_{i:032x}", "sess", f"chat-{i}") for i in range(3)])
        rounds = DatabaseRoundStore(engine, ring)
        kept = open_round(session_id="chat-0", question="问题？", as_of=date(2024, 1, 1))
        with rounds.settle(engine, [("sess_k1_r", None)]) as [settlement]:
            settlement.keep(None, "c" * 32, kept)

        assert "Staged key s2" in _rotate("--stage")
        assert [k for k, _ in read_key_file(key_file)] == ["s1", "s2"]
        assert set(keys_in_use(engine, SEALED_IDS)) == {"s1"}

        assert "4 rows resealed" in _rotate()
        assert [k for k, _ in read_key_file(key_file)] == ["s2", "s1"]
        for table in (SEALED_IDS, SEALED_ROUNDS):
            assert set(keys_in_use(engine, table)) == {"s2"}

        assert "Retired s1" in _rotate("--retire")
        ring = KeyRing(read_key_file(key_file))
        assert ring.key_ids == ("s2",)
        entry = DatabaseMappingStore(engine, ring).resolve(f"sess_k1_{1:032x}")
        assert entry is not None and entry.raw_id == "chat-1"
        found = DatabaseRoundStore(engine, ring).get("sess_k1_r")
        assert found is not None and found.record == kept

        assert "Sealing key s3" in _rotate()  # nothing staged: a new key is made
    finally:
        engine.dispose()


def test_stage_and_retire_together_are_refused(key_file: Path) -> None:
    """The two are separate steps (exit 2)."""
    result = CliRunner().invoke(app, ["store-key", "rotate", "--stage", "--retire"])
    assert result.exit_code == 2
