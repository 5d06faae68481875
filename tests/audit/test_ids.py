"""Random ids drawn a page of os.urandom at a time: uuid4's form, never repeated, not in a fork."""

from __future__ import annotations

import os
import uuid

from hypothesis import given
from hypothesis import strategies as st

from audit.ids import RANDOM_PAGE, random_hex, random_uuid, version4_hex


def test_ids_are_version_4_uuids_and_distinct_over_several_pages() -> None:
    """More ids than one page holds: each a random (version 4, RFC 4122) UUID, none twice."""
    ids = [random_uuid() for _ in range(3 * RANDOM_PAGE // 16 + 5)]
    assert all(i.version == 4 and i.variant == uuid.RFC_4122 for i in ids)
    assert len(set(ids)) == len(ids)


def test_a_forked_process_does_not_draw_its_parents_bytes() -> None:
    """The page's unread bytes stay the parent's: the child's next ids are not the parent's."""
    random_uuid()  # a page read, most of it unread
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child process
        os.close(reader)
        os.write(writer, b"".join(random_uuid().bytes for _ in range(8)))
        os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as pipe:
        drawn = pipe.read()
    os.waitpid(child, 0)
    parents = b"".join(random_uuid().bytes for _ in range(8))
    assert len(drawn) == 8 * 16
    assert drawn != parents


@given(st.binary(min_size=16, max_size=16))
def test_the_hex_of_the_bytes_is_their_version_4_uuids(drawn: bytes) -> None:
    """version4_hex(b) is `uuid.UUID(bytes=b, version=4).hex` for any 16 bytes (fails with the
    version or variant bits set in another byte)."""
    assert version4_hex(drawn) == uuid.UUID(bytes=drawn, version=4).hex


def test_random_hex_ids_are_version_4_and_distinct() -> None:
    """random_hex() gives a version 4, RFC 4122 UUID's hex, none twice over several pages."""
    ids = [random_hex() for _ in range(3 * RANDOM_PAGE // 16 + 5)]
    assert all(
        uuid.UUID(hex=i).version == 4 and uuid.UUID(hex=i).variant == uuid.RFC_4122 for i in ids
    )
    assert len(set(ids)) == len(ids)
