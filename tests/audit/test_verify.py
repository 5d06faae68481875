"""`verify_pack` on a real pack: accepted as written; any changed byte, any added, removed or
reordered member, any edit with the checksums fixed but the counts or figures not, refused."""

from __future__ import annotations

import io
import json
import warnings
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gate
from audit import MappingStore, Pseudonymizer, export_pack, record_many, verify_pack
from audit.errors import PackInvalidError
from audit.models import Recording
from audit.pack import MEMBERS, json_bytes, jsonl_bytes, manifest_digest, sha256_hex, zip_bytes
from legaldb import StatuteRepository, make_engine, upgrade
from tests.audit.conftest import AS_OF, SECRET, ZONE, seeded

# Every test here uses the one pack, built from statutes read from SQLite.
pytestmark = pytest.mark.parametrize("corpus_database_url", ["sqlite"], indirect=True)

QUARTER_START = datetime(2026, 9, 30, 16, 0, tzinfo=UTC)  # 2026-10-01 00:00 in Shanghai


@pytest.fixture(scope="module")
def pack(
    tmp_path_factory: pytest.TempPathFactory,
    statute_repository: StatuteRepository,
    dev_answers: list[dict[str, Any]],
) -> Path:
    """A 2026Q4 pack of 24 real gated answers (rounds of up to three attempts)."""
    workdir = tmp_path_factory.mktemp("pack")
    url = f"sqlite:///{workdir / 'audit.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    by_question: dict[str, list[str]] = {}
    for item in dev_answers:
        by_question.setdefault(item["question"], []).append(item["answer"])
    recordings = []
    for index, item in enumerate(dev_answers[100:124]):
        round_ = gate.open_round(session_id=f"s{index}", question=item["question"], as_of=AS_OF)
        for answer in [seeded(item["answer"]), *by_question[item["question"]][:2]]:
            round_ = gate.submit(round_, answer, repo=statute_repository)
            if round_.state != "open":
                break
        at = QUARTER_START + timedelta(days=index)
        recordings.append(Recording(round_, f"u{index % 4}", recorded_at=at))
    pseudonymizer = Pseudonymizer(SECRET, "k1")
    record_many(
        engine,
        recordings,
        repo=statute_repository,
        pseudonymizer=pseudonymizer,
        store=MappingStore(workdir / "map.sqlite3"),
    )
    path = workdir / "pack.zip"
    export_pack(engine, "2026Q4", path, timezone=ZONE, scheme=pseudonymizer.scheme)
    engine.dispose()
    return path


def members_of(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def write(tmp_path: Path, data: bytes, name: str = "received.zip") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def rejected(path: Path) -> str:
    with pytest.raises(PackInvalidError) as caught:
        verify_pack(path)
    return str(caught.value)


def regions(data: bytes) -> dict[str, tuple[int, int]]:
    """[start, end) of each part of the zip: each member's local header and data, the
    central directory and its end record."""
    found = {}
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
    for info in infos:
        header_end = info.header_offset + 30 + len(info.filename.encode())
        found[f"header:{info.filename}"] = (info.header_offset, header_end)
        found[f"data:{info.filename}"] = (header_end, header_end + info.compress_size)
    last_data_end = max(end for name, (_, end) in found.items() if name.startswith("data:"))
    found["central-directory"] = (last_data_end, len(data) - 22)
    found["end-record"] = (len(data) - 22, len(data))
    return found


def test_the_pack_as_written_verifies(pack: Path) -> None:
    """The exported pack passes, and verify reports its counts and the file's sha256."""
    summary = verify_pack(pack)
    assert summary.period == "2026Q4" and summary.cases == 24
    assert summary.sha256 == sha256_hex(pack.read_bytes())


@pytest.mark.parametrize("where", ["first", "middle", "last"], ids=["first", "middle", "last"])
@pytest.mark.parametrize(
    "region",
    [f"{part}:{name}" for name in MEMBERS for part in ("header", "data")]
    + ["central-directory", "end-record"],
    ids=lambda region: region.replace("/", "-"),
)
def test_a_byte_changed_in_any_part_is_rejected(
    pack: Path, tmp_path: Path, region: str, where: str
) -> None:
    """One byte changed at the start, middle or end of each part of the zip is rejected."""
    data = bytearray(pack.read_bytes())
    start, end = regions(bytes(data))[region]
    position = {"first": start, "middle": (start + end) // 2, "last": end - 1}[where]
    data[position] ^= 0x20
    assert rejected(write(tmp_path, bytes(data)))


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_any_one_changed_byte_is_rejected(pack: Path, tmp_path_factory: Any, data: Any) -> None:
    """Whatever byte of the pack changes, to whatever other value, verify refuses the pack."""
    original = pack.read_bytes()
    position = data.draw(st.integers(min_value=0, max_value=len(original) - 1), label="position")
    value = data.draw(
        st.integers(min_value=0, max_value=255).filter(lambda v: v != original[position])
    )
    changed = bytearray(original)
    changed[position] = value
    path = tmp_path_factory.mktemp("byte") / "received.zip"
    path.write_bytes(bytes(changed))
    with pytest.raises(PackInvalidError):
        verify_pack(path)


def rezip(members: list[tuple[str, bytes]], compression: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with (
        warnings.catch_warnings(),  # a duplicate name is what one test wants
        zipfile.ZipFile(buffer, "w", compression=compression) as archive,
    ):
        warnings.simplefilter("ignore", UserWarning)
        for name, content in members:
            archive.writestr(name, content)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("add", "unexpected member notes.txt"),
        ("remove", "missing member cases.jsonl"),
        ("remove-schema", "missing member schemas/cases.schema.json"),
        ("duplicate", "appears more than once"),
        ("reorder", "not in the pack's order"),
        ("deflate", "canonical form"),
        ("comment", "canonical form"),
        ("appended", "canonical form"),
        ("truncated", "not a readable zip"),
        ("empty", "not a readable zip"),
    ],
    ids=lambda value: value if " " not in value else "",
)
def test_members_added_removed_or_repacked_are_rejected(
    pack: Path, tmp_path: Path, change: str, message: str
) -> None:
    """Adding, removing, duplicating or reordering members, recompressing them, adding a
    comment or trailing bytes, or cutting the file: rejected with a message saying so."""
    data = pack.read_bytes()
    members = list(members_of(data).items())
    if change == "add":
        changed = rezip([*members, ("notes.txt", b"nothing to see")])
    elif change == "remove":
        changed = rezip([m for m in members if m[0] != "cases.jsonl"])
    elif change == "remove-schema":
        changed = rezip([m for m in members if m[0] != "schemas/cases.schema.json"])
    elif change == "duplicate":
        changed = rezip([*members, members[2]])
    elif change == "reorder":
        changed = rezip([members[0], members[2], members[1], *members[3:]])
    elif change == "deflate":
        changed = rezip(members, zipfile.ZIP_DEFLATED)
    elif change == "comment":
        changed = data[:-2] + (7).to_bytes(2, "little") + b"comment"
    elif change == "appended":
        changed = data + b"\0"
    elif change == "truncated":
        changed = data[: len(data) // 2]
    else:
        changed = b""
    assert message in rejected(write(tmp_path, changed))


def forged(data: bytes, edit: Any) -> bytes:
    """The pack with its members edited by edit(members) and every checksum made to match."""
    members = members_of(data)
    manifest = json.loads(members["manifest.json"])
    edit(members, manifest)
    for entry in manifest["files"]:
        entry["sha256"] = sha256_hex(members[entry["path"]])
        entry["bytes"] = len(members[entry["path"]])
    manifest["manifest_sha256"] = manifest_digest(manifest)
    members["manifest.json"] = json_bytes(manifest)
    generated_at = datetime.fromisoformat(manifest["generated_at"])
    return zip_bytes([(name, members[name]) for name in MEMBERS], generated_at)


def _drop_case(members: dict[str, bytes], manifest: dict[str, Any]) -> None:
    cases = [json.loads(line) for line in members["cases.jsonl"].splitlines()]
    members["cases.jsonl"] = jsonl_bytes(cases[1:])


def _drop_case_and_count(members: dict[str, bytes], manifest: dict[str, Any]) -> None:
    cases = [json.loads(line) for line in members["cases.jsonl"].splitlines()]
    members["cases.jsonl"] = jsonl_bytes(cases[1:])
    manifest["counts"]["cases"] -= 1
    manifest["counts"]["attempts"] -= len(cases[0]["attempts"])
    manifest["counts"]["citations"] -= sum(a["counts"]["citations"] for a in cases[0]["attempts"])


def _change_a_decision(members: dict[str, bytes], manifest: dict[str, Any]) -> None:
    cases = [json.loads(line) for line in members["cases.jsonl"].splitlines()]
    attempt = cases[0]["attempts"][0]
    attempt["decision"] = "pass" if attempt["decision"] != "pass" else "rerun"
    members["cases.jsonl"] = jsonl_bytes(cases)


def _move_a_case_out_of_the_quarter(members: dict[str, bytes], manifest: dict[str, Any]) -> None:
    cases = [json.loads(line) for line in members["cases.jsonl"].splitlines()]
    cases[0]["recorded_at"] = "2026-09-30T12:00:00Z"
    members["cases.jsonl"] = jsonl_bytes(cases)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_drop_case, "counts.cases"),
        (_drop_case_and_count, "does not match cases.jsonl"),
        (_change_a_decision, "clusters.json decisions does not match"),
        (_move_a_case_out_of_the_quarter, "outside the pack's period"),
    ],
    ids=["drop-case", "drop-case-and-count", "change-decision", "case-out-of-quarter"],
)
def test_edits_with_fixed_checksums_are_caught_by_the_counts(
    pack: Path, tmp_path: Path, edit: Any, message: str
) -> None:
    """Even with every sha256 and the manifest digest recomputed, cases that disagree with
    the counts, the figures or the period are rejected (naming what disagrees)."""
    assert message in rejected(write(tmp_path, forged(pack.read_bytes(), edit)))


def test_a_manifest_edited_without_its_digest_is_rejected(pack: Path, tmp_path: Path) -> None:
    """A changed manifest value whose digest was not recomputed is rejected."""
    members = members_of(pack.read_bytes())
    manifest = json.loads(members["manifest.json"])
    manifest["generator"]["version"] = "9.9.9"
    members["manifest.json"] = json_bytes(manifest)
    data = zip_bytes(
        [(name, members[name]) for name in MEMBERS],
        datetime.fromisoformat(manifest["generated_at"]),
    )
    assert "manifest_sha256" in rejected(write(tmp_path, data))


def test_a_missing_file_is_reported(tmp_path: Path, pack: Path) -> None:
    """A path that does not exist gives a clear error, not a traceback."""
    assert "cannot read" in rejected(tmp_path / "nowhere.zip")
