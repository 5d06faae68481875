"""The mapping store and the secret file: mode 0600 whatever the umask, round trip, concurrency."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from multiprocessing import get_context
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.errors import (
    InsecureFileError,
    MappingStoreError,
    MappingStoreMissingError,
    PseudonymConflictError,
)
from audit.mapping_store import MappingStore, load_or_create_secret
from audit.models import MappingEntry, PseudonymKind
from audit.private_files import ROWS_PER_INSERT
from audit.pseudonyms import Pseudonymizer

SECRET = b"a deployment secret of 32 bytes!"


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    """Run the test under the umask given as parameter, then restore the old one."""
    previous = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(previous)


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077, 0o277], indirect=True, ids=oct)
def test_store_is_created_with_mode_0600_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    """umask 000 cannot widen the file, umask 277 cannot make it unwritable: it is 0600."""
    store = MappingStore(tmp_path / "var" / "map.sqlite3")
    assert mode_of(store.path) == 0o600
    store.record("subj_k1_" + "a" * 32, "subj", "alice")
    assert store.resolve("subj_k1_" + "a" * 32) is not None
    assert mode_of(store.path) == 0o600


@pytest.mark.parametrize("umask", [0o000, 0o277], indirect=True, ids=oct)
def test_write_ahead_log_gets_the_store_mode(tmp_path: Path, umask: int) -> None:
    """SQLite's -wal and -shm files, which hold rows while a write is open, are 0600 too."""
    store = MappingStore(tmp_path / "map.sqlite3")
    connection = sqlite3.connect(store.path, isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute(
            "INSERT INTO pseudonym_map VALUES ('p', 'subj', 'alice', '2026-01-01T00:00:00+00:00')"
        )
        for suffix in ("-wal", "-shm"):
            assert mode_of(Path(f"{store.path}{suffix}")) == 0o600
    finally:
        connection.close()


@pytest.mark.parametrize("umask", [0o000, 0o277], indirect=True, ids=oct)
def test_secret_file_is_created_with_mode_0600(tmp_path: Path, umask: int) -> None:
    path = tmp_path / "map.secret"
    secret = load_or_create_secret(path)
    assert mode_of(path) == 0o600
    assert len(secret) == 64
    assert load_or_create_secret(path) == secret
    assert [p.name for p in tmp_path.iterdir()] == ["map.secret"]  # no temporary file left


@given(kind=st.sampled_from(list(PseudonymKind)), raw_id=st.text(min_size=1, max_size=64))
def test_record_then_resolve_round_trips(
    tmp_path_factory: pytest.TempPathFactory, kind: PseudonymKind, raw_id: str
) -> None:
    """Whatever the id (any Unicode), resolve gives back the kind and id that were recorded."""
    store = MappingStore(tmp_path_factory.mktemp("store") / "map.sqlite3")
    pseudonym = Pseudonymizer(SECRET, "k1").pseudonym(kind, raw_id)
    store.record(pseudonym, kind, raw_id)
    entry = store.resolve(pseudonym)
    assert entry is not None
    assert (entry.kind, entry.raw_id) == (kind.value, raw_id)


def test_record_is_idempotent_and_keeps_first_seen(tmp_path: Path) -> None:
    store = MappingStore(tmp_path / "map.sqlite3")
    first = datetime(2026, 10, 1, 8, 0, tzinfo=UTC)
    store.record("sess_k1_" + "b" * 32, "sess", "session-1", seen_at=first)
    store.record(
        "sess_k1_" + "b" * 32, "sess", "session-1", seen_at=datetime(2026, 12, 1, tzinfo=UTC)
    )
    assert store.resolve("sess_k1_" + "b" * 32) == MappingEntry(
        "sess_k1_" + "b" * 32, "sess", "session-1", first
    )
    with sqlite3.connect(store.path) as connection:
        assert connection.execute("SELECT count(*) FROM pseudonym_map").fetchone() == (1,)


def test_record_refuses_a_second_meaning(tmp_path: Path) -> None:
    store = MappingStore(tmp_path / "map.sqlite3")
    store.record("subj_k1_" + "c" * 32, "subj", "alice")
    with pytest.raises(PseudonymConflictError):
        store.record("subj_k1_" + "c" * 32, "subj", "bob")
    entry = store.resolve("subj_k1_" + "c" * 32)
    assert entry is not None
    assert entry.raw_id == "alice"


def test_record_many_is_all_or_nothing(tmp_path: Path) -> None:
    """A batch that contradicts itself (one pseudonym, two ids) leaves nothing recorded."""
    store = MappingStore(tmp_path / "map.sqlite3")
    batch = [
        ("subj_k1_" + "f" * 32, "subj", "alice"),
        ("sess_k1_" + "f" * 32, "sess", "s-1"),
        ("sess_k1_" + "f" * 32, "sess", "s-2"),
    ]
    with pytest.raises(PseudonymConflictError):
        store.record_many(batch)
    assert store.resolve("subj_k1_" + "f" * 32) is None
    store.record_many(batch[:2])
    assert store.resolve("sess_k1_" + "f" * 32) is not None


def test_record_many_writes_more_rows_than_one_statement_holds(tmp_path: Path) -> None:
    """Entries beyond ROWS_PER_INSERT (several INSERT statements), some recorded already: each
    resolves to its own id, each recorded once."""
    store = MappingStore(tmp_path / "map.sqlite3")
    entries = [
        (f"subj_k1_{i:032x}", "subj", f"subject-{i}") for i in range(2 * ROWS_PER_INSERT + 1)
    ]
    store.record_many(entries[::7])
    store.record_many(entries)
    for pseudonym, kind, raw_id in entries[::97] + entries[-2:]:
        entry = store.resolve(pseudonym)
        assert entry is not None
        assert (entry.kind, entry.raw_id) == (kind, raw_id)
    with sqlite3.connect(store.path) as connection:
        assert connection.execute("SELECT count(*) FROM pseudonym_map").fetchone() == (
            len(entries),
        )


def test_unknown_pseudonym_resolves_to_none(tmp_path: Path) -> None:
    store = MappingStore(tmp_path / "map.sqlite3")
    assert store.resolve("subj_k1_" + "d" * 32) is None


def test_missing_store_is_a_clear_error_for_trace(tmp_path: Path) -> None:
    """Opening for trace never creates the file; it says where it looked and why it matters."""
    path = tmp_path / "map.sqlite3"
    with pytest.raises(MappingStoreMissingError, match=r"map\.sqlite3.*mapping_store_path"):
        MappingStore(path, create=False)
    assert not path.exists()


def test_existing_store_opens_for_trace(tmp_path: Path) -> None:
    MappingStore(tmp_path / "map.sqlite3").record("subj_k1_" + "e" * 32, "subj", "alice")
    entry = MappingStore(tmp_path / "map.sqlite3", create=False).resolve("subj_k1_" + "e" * 32)
    assert entry is not None
    assert entry.raw_id == "alice"


def test_readable_store_is_refused(tmp_path: Path) -> None:
    store = MappingStore(tmp_path / "map.sqlite3")
    store.path.chmod(0o644)
    with pytest.raises(InsecureFileError, match="0644"):
        MappingStore(store.path, create=False)


@pytest.mark.parametrize(
    "content",
    [b"this is not a database, just some text" * 100, None],
    ids=["not-sqlite", "foreign-sqlite"],
)
def test_foreign_file_is_refused(tmp_path: Path, content: bytes | None) -> None:
    path = tmp_path / "map.sqlite3"
    if content is None:
        with sqlite3.connect(path) as connection:
            connection.execute("CREATE TABLE other (x)")
    else:
        path.write_bytes(content)
    path.chmod(0o600)
    with pytest.raises(MappingStoreError):
        MappingStore(path, create=False)


def _record_many(path: str, worker: int) -> int:
    store = MappingStore(path)
    pseudonymizer = Pseudonymizer(SECRET, "k1")
    for index in range(150):
        raw_id = f"subject-{index % 100}" if index % 2 else f"subject-{worker}-{index}"
        store.record(pseudonymizer.pseudonym("subj", raw_id), "subj", raw_id)
    return worker


def _load_secret(path: str) -> bytes:
    return load_or_create_secret(Path(path))


def test_concurrent_writers_in_processes(tmp_path: Path) -> None:
    """Four processes record at once (shared ids too): no lock error, every id resolvable."""
    path = str(tmp_path / "map.sqlite3")
    with ProcessPoolExecutor(max_workers=4, mp_context=get_context("fork")) as pool:
        assert sorted(pool.map(_record_many, [path] * 4, range(4))) == [0, 1, 2, 3]
    store = MappingStore(path, create=False)
    pseudonymizer = Pseudonymizer(SECRET, "k1")
    for raw_id in [f"subject-{n}" for n in range(1, 100, 2)] + ["subject-3-148"]:
        entry = store.resolve(pseudonymizer.pseudonym("subj", raw_id))
        assert entry is not None
        assert entry.raw_id == raw_id
    assert mode_of(Path(path)) == 0o600


def test_concurrent_first_use_agrees_on_one_secret(tmp_path: Path) -> None:
    """Processes generating the secret at the same moment all end up with the same one."""
    path = str(tmp_path / "map.secret")
    with ProcessPoolExecutor(max_workers=4, mp_context=get_context("fork")) as pool:
        secrets = set(pool.map(_load_secret, [path] * 16))
    assert len(secrets) == 1
    assert mode_of(Path(path)) == 0o600
