"""The evidence pack's format, and `verify_pack`: what an auditor runs on a pack received.

A pack is a zip of six members in a fixed order, stored uncompressed with fixed headers (the
time of each entry is the manifest's generated_at), so that every byte of the file is covered:
the members by the sha256 the manifest lists, the manifest by its own digest and canonical
form, and everything between them by rebuilding the zip from its members and comparing bytes.
Compress the file for transfer if needed; the pack itself stays byte-for-byte checkable.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from audit.clusters import compute_clusters
from audit.errors import PackInvalidError
from audit.models import PackSummary

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"
CLUSTERS = "clusters.json"
CASES = "cases.jsonl"
SCHEMA_NAMES = {
    MANIFEST: "manifest.schema.json",
    CLUSTERS: "clusters.schema.json",
    CASES: "cases.schema.json",
}
MEMBERS = (MANIFEST, CLUSTERS, CASES, *(f"schemas/{name}" for name in SCHEMA_NAMES.values()))
"""Every member of a pack, in the zip's order."""

_FILE_MODE = 0o100644  # a regular file, rw-r--r--


# --- Serialisation ---


def json_bytes(value: Any) -> bytes:
    """A JSON file as packs write it: sorted keys, two-space indent, UTF-8, final newline."""
    return (json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode()


def jsonl_bytes(values: Iterable[Any]) -> bytes:
    """JSON Lines as packs write them: one compact object (sorted keys) per line."""
    return "".join(
        json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
        for value in values
    ).encode()


def sha256_hex(data: bytes) -> str:
    """Hex sha256 of data."""
    return hashlib.sha256(data).hexdigest()


def manifest_digest(manifest: Mapping[str, Any]) -> str:
    """The manifest's own digest: sha256 of its file form without the manifest_sha256 field."""
    return sha256_hex(json_bytes({k: v for k, v in manifest.items() if k != "manifest_sha256"}))


def utc_text(moment: datetime) -> str:
    """2026-10-01T02:03:04Z (microseconds kept when there are any)."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def zip_bytes(members: Sequence[tuple[str, bytes]], generated_at: datetime) -> bytes:
    """The pack's zip: members stored uncompressed in the given order, headers fixed."""
    moment = generated_at.astimezone(UTC)
    date_time = (moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time)
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3  # Unix, whatever system writes the pack
            info.external_attr = _FILE_MODE << 16
            archive.writestr(info, data)
    return buffer.getvalue()


# --- Schemas ---


def schema_bytes(name: str) -> bytes:
    """The bytes of a schema file shipped in audit/schemas (name: cases.schema.json …)."""
    return resources.files("audit").joinpath("schemas", name).read_bytes()


def _inline_refs(node: Any, definitions: Mapping[str, Any]) -> Any:
    """node with every local reference (#/$defs/name) replaced by its definition.

    The same schema, validated about twice as fast: jsonschema resolves each $ref anew.
    """
    if isinstance(node, list):
        return [_inline_refs(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    reference = node.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/$defs/"):
        target = _inline_refs(definitions[reference.removeprefix("#/$defs/")], definitions)
        rest = {k: _inline_refs(v, definitions) for k, v in node.items() if k != "$ref"}
        return {**target, **rest}
    return {k: _inline_refs(v, definitions) for k, v in node.items() if k != "$defs"}


@cache
def _validator(name: str) -> Draft202012Validator:
    schema = json.loads(schema_bytes(name))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(_inline_refs(schema, schema.get("$defs", {})))


def schema_error(member: str, instance: Any, line: int | None = None) -> str | None:
    """Why instance fails the schema of member (manifest.json, clusters.json, cases.jsonl)."""
    error = best_match(_validator(SCHEMA_NAMES[member]).iter_errors(instance))
    if error is None:
        return None
    where = f"{member} line {line}" if line is not None else member
    return f"{where}: {error.message} (at {error.json_path})"


# --- Consistency of the parts (shared by export and verify) ---


def consistency_errors(
    manifest: Mapping[str, Any], clusters: Mapping[str, Any], cases: Sequence[Mapping[str, Any]]
) -> list[str]:
    """What disagrees between the manifest's counts, the clusters and the cases."""
    problems = []
    counts = manifest["counts"]
    attempts = sum(len(case["attempts"]) for case in cases)
    citations = sum(a["counts"]["citations"] for case in cases for a in case["attempts"])
    for name, found in (("cases", len(cases)), ("attempts", attempts), ("citations", citations)):
        if counts[name] != found:
            problems.append(f"manifest counts.{name} is {counts[name]}, cases.jsonl has {found}")
    ids = Counter(case["case_id"] for case in cases)
    problems.extend(f"case {case_id} appears {n} times" for case_id, n in ids.items() if n > 1)
    period = manifest["period"]
    start, end = (datetime.fromisoformat(period[k]) for k in ("start", "end"))
    for case in cases:
        problems.extend(_case_errors(case, start, end))
    for listing, key in (("statute_snapshots", "snapshot"), ("gate_policies", "policy_id")):
        field = "statute_snapshot" if key == "snapshot" else key
        listed = Counter({entry[key]: entry["cases"] for entry in manifest[listing]})
        used = Counter(case[field] for case in cases)
        if listed != used:
            problems.append(f"manifest {listing} do not match the cases' {field}")
    expected = compute_clusters(cases, period["quarter"])
    problems.extend(
        f"clusters.json {key} does not match cases.jsonl"
        for key in sorted(expected)
        if clusters.get(key) != expected[key]
    )
    return problems


def _case_errors(case: Mapping[str, Any], start: datetime, end: datetime) -> list[str]:
    problems = []
    case_id = case["case_id"]
    if not start <= datetime.fromisoformat(case["recorded_at"]) < end:
        problems.append(f"case {case_id} was recorded outside the pack's period")
    numbers = [attempt["attempt"] for attempt in case["attempts"]]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"case {case_id}: attempts are numbered {numbers}, not 1..n")
    for attempt in case["attempts"]:
        grouped = sum(group["citations"] for group in attempt["citations"])
        if grouped != attempt["counts"]["citations"]:
            problems.append(
                f"case {case_id} attempt {attempt['attempt']}: {grouped} citations by status, "
                f"{attempt['counts']['citations']} counted"
            )
    return problems


# --- Verification ---


def _read_members(data: bytes) -> dict[str, bytes]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except Exception as error:  # untrusted bytes: zipfile raises many kinds of errors
        raise PackInvalidError(f"not a readable zip file: {error}") from None
    with archive:
        names = archive.namelist()
        duplicates = sorted(name for name, n in Counter(names).items() if n > 1)
        missing = [name for name in MEMBERS if name not in names]
        unexpected = sorted(set(names) - set(MEMBERS))
        if duplicates or missing or unexpected:
            raise PackInvalidError(
                "; ".join(
                    [f"member {name} appears more than once" for name in duplicates]
                    + [f"missing member {name}" for name in missing]
                    + [f"unexpected member {name}" for name in unexpected]
                )
            )
        if tuple(names) != MEMBERS:
            raise PackInvalidError(f"members are not in the pack's order: {names}")
        members = {}
        for name in MEMBERS:
            try:
                members[name] = archive.read(name)
            except Exception as error:  # a bad CRC, header, method or flag
                raise PackInvalidError(f"{name} is damaged: {error}") from None
    return members


def _parse_json(name: str, data: bytes, line: int | None = None) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        where = f"{name} line {line}" if line is not None else name
        raise PackInvalidError(f"{where} is not valid JSON: {error}") from None


def _check_manifest(data: bytes) -> dict[str, Any]:
    manifest = _parse_json(MANIFEST, data)
    problem = schema_error(MANIFEST, manifest)
    if problem:
        raise PackInvalidError(problem)
    if manifest_digest(manifest) != manifest["manifest_sha256"]:
        raise PackInvalidError("manifest.json does not match its manifest_sha256 (it was changed)")
    if json_bytes(manifest) != data:
        raise PackInvalidError("manifest.json is not in the pack's canonical form (it was edited)")
    return dict(manifest)


def _check_files(manifest: Mapping[str, Any], members: Mapping[str, bytes]) -> None:
    listed = [entry["path"] for entry in manifest["files"]]
    if listed != list(MEMBERS[1:]):
        raise PackInvalidError(f"manifest files {listed} are not the pack's members")
    for entry in manifest["files"]:
        data = members[entry["path"]]
        if sha256_hex(data) != entry["sha256"] or len(data) != entry["bytes"]:
            raise PackInvalidError(f"{entry['path']}: sha256 does not match the manifest")
    for name in SCHEMA_NAMES.values():
        if members[f"schemas/{name}"] != schema_bytes(name):
            raise PackInvalidError(
                f"schemas/{name} differs from this verifier's schema version {SCHEMA_VERSION}"
            )


def _read_cases(data: bytes) -> list[dict[str, Any]]:
    if data and not data.endswith(b"\n"):
        raise PackInvalidError("cases.jsonl does not end with a newline")
    cases = []
    for number, line in enumerate(data.splitlines(), start=1):
        case = _parse_json(CASES, line, number)
        problem = schema_error(CASES, case, number)
        if problem:
            raise PackInvalidError(problem)
        cases.append(case)
    return cases


def verify_pack(path: Path | str) -> PackSummary:
    """Check a pack: members, checksums, schemas, counts, clusters and byte layout.

    Returns what the pack holds; PackInvalidError names the first thing found wrong.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise PackInvalidError(f"cannot read {path}: {error.strerror or error}") from None
    members = _read_members(data)
    manifest = _check_manifest(members[MANIFEST])
    if manifest["schema_version"] != SCHEMA_VERSION:
        raise PackInvalidError(f"schema version {manifest['schema_version']} is not supported")
    _check_files(manifest, members)
    clusters = _parse_json(CLUSTERS, members[CLUSTERS])
    problem = schema_error(CLUSTERS, clusters)
    if problem:
        raise PackInvalidError(problem)
    cases = _read_cases(members[CASES])
    try:
        problems = consistency_errors(manifest, clusters, cases)
        generated_at = datetime.fromisoformat(manifest["generated_at"])
        canonical = zip_bytes([(name, members[name]) for name in MEMBERS], generated_at)
    except ValueError as error:  # a date that matches its pattern but does not exist
        raise PackInvalidError(f"a date or time in the pack is not valid: {error}") from None
    if problems:
        raise PackInvalidError("; ".join(problems[:5]) + ("; …" if len(problems) > 5 else ""))
    if canonical != data:
        raise PackInvalidError(
            "the zip's headers or layout differ from the pack's canonical form: bytes outside "
            "the members were changed, added or removed"
        )
    counts = manifest["counts"]
    return PackSummary(
        path=str(path),
        pack_id=manifest["pack_id"],
        period=manifest["period"]["quarter"],
        cases=counts["cases"],
        attempts=counts["attempts"],
        citations=counts["citations"],
        sha256=sha256_hex(data),
        size_bytes=len(data),
    )


__all__ = [
    "MEMBERS",
    "SCHEMA_VERSION",
    "consistency_errors",
    "json_bytes",
    "jsonl_bytes",
    "manifest_digest",
    "schema_error",
    "sha256_hex",
    "utc_text",
    "verify_pack",
    "zip_bytes",
]
