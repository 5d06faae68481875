"""AES-256-GCM sealing of the private stores kept in a database: key ring, key file, reseal;
the database's pseudonym mapping on both backends."""

from __future__ import annotations

import os
import stat
import threading
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from audit.errors import PseudonymConflictError, SealError
from audit.mapping_store import SEALED_IDS, DatabaseMappingStore
from audit.sealing import (
    KeyRing,
    create_key_file,
    keys_in_use,
    new_key,
    parse_keys,
    read_key_file,
    reseal,
    write_key_file,
)
from audit.tables import PSEUDONYM_TABLE
from legaldb import make_engine, upgrade
from tests.conftest import create_postgres_database

OLD = ("s1", b"o" * 32)
NEW = ("s2", b"n" * 32)


def test_a_sealed_value_opens_only_in_its_row_and_under_a_known_key() -> None:
    """Sealed under the first key, opened by any key of the ring, never in another row's
    context, never altered, never by a ring without its key."""
    ring = KeyRing([OLD])
    sealed = ring.seal("张三 13912345678".encode(), b"subj_k1_aaaa")
    assert sealed.key_id == "s1" and "张三".encode() not in sealed.data
    assert KeyRing([NEW, OLD]).open(sealed, b"subj_k1_aaaa") == "张三 13912345678".encode()
    assert ring.seal(b"x", b"c").data != ring.seal(b"x", b"c").data  # a fresh nonce each time
    with pytest.raises(SealError, match="does not open"):
        ring.open(sealed, b"subj_k1_bbbb")
    altered = type(sealed)(sealed.key_id, sealed.data[:-1] + bytes([sealed.data[-1] ^ 1]))
    with pytest.raises(SealError, match="does not open"):
        ring.open(altered, b"subj_k1_aaaa")
    with pytest.raises(SealError, match="lacks"):
        KeyRing([NEW]).open(sealed, b"subj_k1_aaaa")
    assert "o" * 32 not in repr(ring)


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "at least one"), ("s1", "key_id:base64"), ("s1:???", "not base64"),
     ("s1:" + "QUJD", "AES-256"), ("S 1:" + "QUJD", "key id")],
    ids=["empty", "no colon", "not base64", "short key", "bad id"],
)  # fmt: skip
def test_bad_key_text_is_refused(text: str, message: str) -> None:
    """A key ring from text that is not `id:base64` of 32 bytes names what is wrong."""
    with pytest.raises(SealError, match=message):
        KeyRing(parse_keys(text))


def test_the_key_file_is_private_and_round_trips(tmp_path: Path) -> None:
    """Made once with mode 0600 whatever the umask, never replaced; a wider mode is refused."""
    path = tmp_path / "store.key"
    previous = os.umask(0)
    try:
        assert create_key_file(path) and not create_key_file(path)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    [(key_id, key)] = read_key_file(path)
    assert key_id == "s1" and len(key) == 32
    write_key_file(path, [NEW, (key_id, key)])
    assert read_key_file(path) == [NEW, (key_id, key)]
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    os.chmod(path, 0o644)
    with pytest.raises(SealError, match="0600"):
        read_key_file(path)
    with pytest.raises(SealError, match="lexgate audit init"):
        read_key_file(tmp_path / "missing.key")


def test_the_database_mapping_is_sealed_and_resealed(database_url: str) -> None:
    """Both backends: ids recorded sealed (not in clear), resolved back, a contradiction
    refused; after a reseal under a new key every row is under it and still resolves."""
    upgrade(database_url)
    engine = make_engine(database_url)
    try:
        store = DatabaseMappingStore(engine, KeyRing([OLD]))
        seen = datetime(2026, 12, 1, tzinfo=UTC)
        entries = [(f"subj_k1_{i:032x}", "subj", f"user-{i}-张三") for i in range(7)]
        store.record_many(entries, seen)
        store.record_many(entries[:2], seen)  # again: nothing new
        with pytest.raises(PseudonymConflictError):
            store.record_many([(entries[0][0], "subj", "someone-else")], seen)
        with engine.connect() as connection:
            rows = connection.execute(PSEUDONYM_TABLE.select()).all()
        assert len(rows) == 7 and all(b"user-" not in row.sealed_id for row in rows)
        entry = store.resolve(entries[3][0])
        assert entry is not None and (entry.raw_id, entry.first_seen) == ("user-3-张三", seen)
        assert store.resolve("subj_k1_" + "f" * 32) is None

        ring = KeyRing([NEW, OLD])
        assert reseal(engine, SEALED_IDS, ring) == 7
        assert reseal(engine, SEALED_IDS, ring) == 0
        assert set(keys_in_use(engine, SEALED_IDS)) == {"s2"}
        after = DatabaseMappingStore(engine, KeyRing([NEW]))
        assert [after.resolve(p).raw_id for p, _, _ in entries] == [r for _, _, r in entries]  # type: ignore[union-attr]
    finally:
        engine.dispose()


def test_new_keys_are_random() -> None:
    """Two new keys differ (256 random bits each)."""
    assert new_key() != new_key() and len(new_key()) == 32


@pytest.mark.parametrize("same_id", [True, False], ids=["same-id", "another-id"])
def test_a_mapping_another_host_records_meanwhile_is_checked(
    postgres_admin_url: str, same_id: bool
) -> None:
    """PostgreSQL (the store several hosts share): a pseudonym that another transaction records
    after the store read it as missing is not written twice; the store waits for that
    transaction, then accepts its row when it stands for the same id and refuses it
    (PseudonymConflictError, nothing written) when it stands for another."""
    url = create_postgres_database(postgres_admin_url, f"t_{uuid.uuid4().hex[:16]}")
    upgrade(url)
    engine = make_engine(url)
    try:
        store = DatabaseMappingStore(engine, KeyRing([OLD]))
        seen = datetime(2026, 12, 2, tzinfo=UTC)
        pseudonym = f"subj_k1_{7:032x}"
        fresh = (f"sess_k1_{8:032x}", "sess", "chat-8")
        outcome: list[BaseException | None] = []

        def other_host() -> None:
            try:
                store.record_many([(pseudonym, "subj", "user-7"), fresh], seen)
                outcome.append(None)
            except BaseException as error:  # reported to the test's thread
                outcome.append(error)

        with engine.connect() as first:
            first.begin()
            store.record_many(
                [(pseudonym, "subj", "user-7" if same_id else "user-9")], seen, connection=first
            )
            thread = threading.Thread(target=other_host)
            thread.start()
            thread.join(timeout=1.0)
            assert thread.is_alive()  # its insert waits for this transaction's row
            first.commit()
        thread.join(timeout=30)
        assert not thread.is_alive()
        with engine.connect() as connection:
            rows = connection.execute(sa.select(PSEUDONYM_TABLE.c.pseudonym)).scalars().all()
        if same_id:
            assert outcome == [None]
            assert sorted(rows) == sorted([pseudonym, fresh[0]])
            assert store.resolve(fresh[0]).raw_id == "chat-8"  # type: ignore[union-attr]
        else:
            assert len(outcome) == 1 and isinstance(outcome[0], PseudonymConflictError)
            assert rows == [pseudonym]  # the other host's answer wrote nothing
        assert store.resolve(pseudonym).raw_id == ("user-7" if same_id else "user-9")  # type: ignore[union-attr]
    finally:
        engine.dispose()
