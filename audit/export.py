"""`export_pack`: the quarterly evidence pack, one zip of manifest, clusters, cases and schemas.

A case belongs to the quarter (in the configured timezone) in which its first answer was
gated. Every file is validated against its schema and the parts against each other before
anything is written; the zip goes to a temporary file beside the target and is renamed into
place, so a failing export leaves nothing behind.
"""

from __future__ import annotations

import os
import re
import uuid
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import sqlalchemy as sa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy.engine import Engine

from audit.clusters import compute_clusters
from audit.errors import ExportError
from audit.models import PackSummary, Period, PseudonymScheme
from audit.pack import (
    CASES,
    CLUSTERS,
    MANIFEST,
    MEMBERS,
    SCHEMA_NAMES,
    SCHEMA_VERSION,
    consistency_errors,
    json_bytes,
    jsonl_bytes,
    manifest_digest,
    schema_bytes,
    schema_error,
    sha256_hex,
    utc_text,
    zip_bytes,
)
from audit.pseudonyms import parse_pseudonym
from audit.recorder import ATTEMPT_TABLE, CASE_TABLE, CITATION_TABLE
from audit.review import reviews_by_case
from audit.signing import fingerprint, sign_pack, signature_path
from gate.models import INVENTED_SIGNALS
from gate.standards import DEPRECATED_SIGNALS
from textnorm import article_label

# An attempt's counts, as columns of audit_attempt and as the pack's "counts" of an attempt.
COUNT_COLUMNS = (
    "citations",
    "provisions",
    "verified",
    "deprecated",
    "not_yet_effective",
    "unverified",
)
_QUARTER_RE = re.compile(r"([0-9]{4})Q([1-4])")

Json = dict[str, Any]


def quarter_period(quarter: str, timezone: str) -> Period:
    """2026Q4 in Asia/Shanghai → [2026-10-01T00:00+08:00, 2027-01-01T00:00+08:00)."""
    match = _QUARTER_RE.fullmatch(quarter.strip().upper())
    if match is None:
        raise ExportError(f"not a quarter: {quarter!r} (write it like 2026Q4)")
    year, number = int(match.group(1)), int(match.group(2))
    if year < 1980:
        raise ExportError(f"no quarter before 1980: {quarter!r}")
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ExportError(f"unknown timezone {timezone!r}") from None
    start = datetime(year, 3 * number - 2, 1, tzinfo=zone)
    if year + number // 4 > datetime.max.year:  # 9999Q4 would end in the year 10000
        raise ExportError(f"no quarter after 9999Q3: {quarter!r}")
    end = datetime(year + number // 4, 1 if number == 4 else 3 * number + 1, 1, tzinfo=zone)
    return Period(f"{year}Q{number}", timezone, start, end)


def default_pack_name(quarter: str) -> str:
    """lexgate-audit-2026Q4.zip"""
    return f"lexgate-audit-{quarter}.zip"


# --- Reading the quarter's records ---


def _in_period(period: Period) -> sa.ColumnElement[bool]:
    recorded_at = CASE_TABLE.c.recorded_at
    return sa.and_(recorded_at >= period.start, recorded_at < period.end)


def load_cases(
    engine: Engine, period: Period
) -> tuple[list[Json], dict[str, Json], dict[str, str]]:
    """The period's cases as cases.jsonl objects (oldest first), the policies they name by id
    and the source of each statute snapshot they name."""
    attempt_columns = [
        ATTEMPT_TABLE.c[name]
        for name in (
            "case_id",
            "attempt",
            "recorded_at",
            "decision",
            "verifiable_rate",
            *COUNT_COLUMNS,
            "failures",
            "failed_standards",
            "unsupported_conclusions",
            "tail_coverage",
            "rerun_requested",
            "answer_sha256",
        )
    ]
    joined = CITATION_TABLE.join(CASE_TABLE, CITATION_TABLE.c.case_id == CASE_TABLE.c.case_id)
    with engine.connect() as connection:
        case_rows = connection.execute(
            sa.select(
                CASE_TABLE.c.case_id,
                CASE_TABLE.c.recorded_at,
                CASE_TABLE.c.subject,
                CASE_TABLE.c.session,
                CASE_TABLE.c.as_of,
                CASE_TABLE.c.policy_id,
                CASE_TABLE.c.statute_source,
                CASE_TABLE.c.statute_snapshot,
                CASE_TABLE.c.state,
                CASE_TABLE.c.delivery,
            )
            .where(_in_period(period))
            .order_by(CASE_TABLE.c.recorded_at, CASE_TABLE.c.case_id)
        ).all()
        # One case per policy is enough to read each policy once.
        first_of_policy = {row.policy_id: row.case_id for row in reversed(case_rows)}
        policies: dict[str, Json] = {}
        if first_of_policy:
            policies = {
                row.policy_id: row.policy
                for row in connection.execute(
                    sa.select(CASE_TABLE.c.policy_id, CASE_TABLE.c.policy).where(
                        CASE_TABLE.c.case_id.in_(list(first_of_policy.values()))
                    )
                )
            }
        attempts: dict[str, list[Any]] = defaultdict(list)
        for row in connection.execute(
            sa.select(*attempt_columns)
            .join(CASE_TABLE, ATTEMPT_TABLE.c.case_id == CASE_TABLE.c.case_id)
            .where(_in_period(period))
            .order_by(ATTEMPT_TABLE.c.case_id, ATTEMPT_TABLE.c.attempt)
        ):
            attempts[row.case_id].append(row)
        # The citation table is what makes these two queries plain SQL on both backends.
        groups: dict[tuple[str, int], list[Json]] = defaultdict(list)
        for row in connection.execute(
            sa.select(
                CITATION_TABLE.c.case_id,
                CITATION_TABLE.c.attempt,
                CITATION_TABLE.c.status,
                CITATION_TABLE.c.reason,
                sa.func.count().label("citations"),
            )
            .select_from(joined)
            .where(_in_period(period))
            .group_by(
                CITATION_TABLE.c.case_id,
                CITATION_TABLE.c.attempt,
                CITATION_TABLE.c.status,
                CITATION_TABLE.c.reason,
            )
            .order_by(
                CITATION_TABLE.c.case_id,
                CITATION_TABLE.c.attempt,
                CITATION_TABLE.c.status,
                CITATION_TABLE.c.reason,
            )
        ):
            groups[(row.case_id, row.attempt)].append(
                {"status": row.status, "reason": row.reason, "citations": row.citations}
            )
        conflicts: dict[str, list[Any]] = defaultdict(list)
        for row in connection.execute(
            sa.select(
                CITATION_TABLE.c.case_id,
                CITATION_TABLE.c.attempt,
                CITATION_TABLE.c.position,
                CITATION_TABLE.c.provision,
                CITATION_TABLE.c.number_conflicts,
            )
            .select_from(joined)
            .where(_in_period(period), sa.cast(CITATION_TABLE.c.number_conflicts, sa.Text) != "[]")
            .order_by(CITATION_TABLE.c.case_id, CITATION_TABLE.c.attempt, CITATION_TABLE.c.position)
        ):
            conflicts[row.case_id].append(row)
    cases = [
        _case_json(row, attempts[row.case_id], groups, conflicts[row.case_id]) for row in case_rows
    ]
    reviews = reviews_by_case(engine, period.start, period.end)  # the judge's review queue
    for case in cases:
        case["judge_reviews"] = reviews.get(case["case_id"], [])
    sources = {row.statute_snapshot: row.statute_source for row in case_rows}
    return cases, policies, sources


def _case_json(
    row: Any,
    attempt_rows: Sequence[Any],
    groups: Mapping[tuple[str, int], list[Json]],
    conflict_rows: Sequence[Any],
) -> Json:
    """One line of cases.jsonl from a case's rows."""
    attempts: list[Json] = []
    invented: list[Json] = []
    repealed: list[Json] = []
    unsupported: list[Json] = []
    failed: list[Json] = []
    tail: list[Json] = []
    for attempt in attempt_rows:
        number = attempt.attempt
        failures = attempt.failures
        attempts.append(
            {
                "attempt": number,
                "recorded_at": utc_text(attempt.recorded_at),
                "decision": attempt.decision,
                "verifiable_rate": attempt.verifiable_rate,
                "counts": {name: getattr(attempt, name) for name in COUNT_COLUMNS},
                "citations": groups.get((row.case_id, number), []),
                "failure_signals": sorted({failure["signal"] for failure in failures}),
                "rerun_requested": attempt.rerun_requested,
                "answer_sha256": attempt.answer_sha256,
            }
        )
        for failure in failures:
            if failure["signal"] in INVENTED_SIGNALS:
                invented.append(
                    {
                        "attempt": number,
                        "signal": failure["signal"],
                        "law": failure["law"],
                        "article": article_label(failure["article"], failure["article_suffix"]),
                        "provision": failure["provision"],
                        "article_count": failure["article_count"],
                        "paragraph_count": failure["paragraph_count"],
                        "item_count": failure["item_count"],
                    }
                )
            elif failure["signal"] in DEPRECATED_SIGNALS:
                repealed.append(
                    {
                        "attempt": number,
                        "signal": failure["signal"],
                        "law": failure["law"],
                        "provision": failure["provision"],
                        "repealed_on": failure["repealed_on"],
                    }
                )
        failed.extend({"attempt": number, **standard} for standard in attempt.failed_standards)
        unsupported.extend(
            {"attempt": number, "text": text} for text in attempt.unsupported_conclusions
        )
        tail.append({"attempt": number, **attempt.tail_coverage})
    return {
        "case_id": row.case_id,
        "recorded_at": utc_text(row.recorded_at),
        "subject": row.subject,
        "session": row.session,
        "as_of": row.as_of.isoformat(),
        "policy_id": row.policy_id,
        "statute_snapshot": row.statute_snapshot,
        "final_state": row.state,
        "delivery": row.delivery,
        "attempts": attempts,
        "invented_articles": invented,
        "repealed_provisions": repealed,
        "conclusions_without_basis": unsupported,
        "failed_standards": failed,
        "number_conflicts": _number_conflicts(conflict_rows),
        "tail_coverage": tail,
    }


def _number_conflicts(rows: Sequence[Any]) -> list[Json]:
    """One entry per (attempt, provision, kind, value): repeats of a citation count once."""
    seen: set[tuple[int, str, str, float]] = set()
    found = []
    for row in rows:
        for conflict in row.number_conflicts:
            key = (row.attempt, row.provision, conflict["kind"], conflict["claim_value"])
            if key in seen:
                continue
            seen.add(key)
            found.append(
                {
                    "attempt": row.attempt,
                    "provision": row.provision,
                    "kind": conflict["kind"],
                    "claim": conflict["claim_surface"],
                    "claim_value": conflict["claim_value"],
                    "article_values": conflict["article_values"],
                }
            )
    return found


# --- Building and writing the pack ---


def _generator_version() -> str:
    try:
        return metadata.version("lexgate")
    except metadata.PackageNotFoundError:
        return "unknown"


def _snapshots(case_rows: Sequence[Json], sources: Mapping[str, str]) -> list[Json]:
    counts: dict[str, int] = defaultdict(int)
    for case in case_rows:
        counts[case["statute_snapshot"]] += 1
    return [
        {"source": sources[snapshot], "snapshot": snapshot, "cases": n}
        for snapshot, n in sorted(counts.items())
    ]


def _refuse(problems: Iterable[str | None]) -> None:
    found = [problem for problem in problems if problem]
    if found:
        raise ExportError(
            "the pack fails validation, nothing was written: "
            + "; ".join(found[:5])
            + ("; …" if len(found) > 5 else "")
        )


def build_members(
    cases: Sequence[Json],
    policies: Mapping[str, Json],
    sources: Mapping[str, str],
    *,
    period: Period,
    scheme: PseudonymScheme,
    generated_at: datetime,
    pack_id: str,
) -> list[tuple[str, bytes]]:
    """The pack's members in order, every file validated and the parts checked together.

    generated_at is kept to the second (the zip's entries carry it too).
    """
    _refuse(schema_error(CASES, case, line) for line, case in enumerate(cases, start=1))
    clusters = compute_clusters(cases, period.label)  # on valid cases only
    files = {
        CLUSTERS: json_bytes(clusters),
        CASES: jsonl_bytes(cases),
        **{f"schemas/{name}": schema_bytes(name) for name in SCHEMA_NAMES.values()},
    }
    policy_counts: dict[str, int] = defaultdict(int)
    key_ids: set[str] = set()
    for case in cases:
        policy_counts[case["policy_id"]] += 1
        for pseudonym in (case["subject"], case["session"]):
            if pseudonym is not None:
                key_ids.add(parse_pseudonym(pseudonym)[1])
    manifest: Json = {
        "schema_version": SCHEMA_VERSION,
        "pack_id": pack_id,
        "period": {
            "quarter": period.label,
            "timezone": period.timezone,
            "start": period.start.isoformat(),
            "end": period.end.isoformat(),
        },
        "generated_at": utc_text(generated_at.replace(microsecond=0)),
        "generator": {"name": "lexgate", "version": _generator_version()},
        "statute_snapshots": _snapshots(cases, sources),
        "gate_policies": [
            {"policy_id": policy_id, "policy": policies[policy_id], "cases": n}
            for policy_id, n in sorted(policy_counts.items())
        ],
        "pseudonym_scheme": {
            "algorithm": scheme.algorithm,
            "message": scheme.message,
            "digest_hex_chars": scheme.digest_hex_chars,
            "format": scheme.format,
            "key_id": scheme.key_id,
            "key_ids_in_pack": sorted(key_ids),
        },
        "counts": {
            "cases": len(cases),
            "attempts": sum(len(case["attempts"]) for case in cases),
            "citations": sum(a["counts"]["citations"] for case in cases for a in case["attempts"]),
        },
        "files": [
            {"path": name, "sha256": sha256_hex(files[name]), "bytes": len(files[name])}
            for name in MEMBERS[1:]
        ],
    }
    manifest["manifest_sha256"] = manifest_digest(manifest)
    _refuse([schema_error(MANIFEST, manifest), schema_error(CLUSTERS, clusters)])
    _refuse(consistency_errors(manifest, clusters, cases))
    return [(MANIFEST, json_bytes(manifest)), *((name, files[name]) for name in MEMBERS[1:])]


def _refuse_existing(target: Path, *, overwrite: bool) -> None:
    if target.exists() and not overwrite:
        raise ExportError(f"{target} exists; choose another --out or allow overwriting")


def _write_atomically(target: Path, data: bytes, *, overwrite: bool) -> None:
    """data into target by way of a temporary file in the same directory and a rename."""
    _refuse_existing(target, overwrite=overwrite)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(temporary, "xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    directory = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def export_pack(
    engine: Engine,
    quarter: str,
    out: Path | str | None = None,
    *,
    timezone: str,
    scheme: PseudonymScheme,
    overwrite: bool = False,
    now: datetime | None = None,
    signing_key: Ed25519PrivateKey | None = None,
) -> PackSummary:
    """Write the evidence pack of a quarter (2026Q4, in the time zone given: LEXGATE_TIMEZONE)
    to out (default lexgate-audit-2026Q4.zip),
    and with signing_key its detached signature beside it (out + .sig, audit/signing.py).

    ExportError, with nothing written, for a bad quarter or a pack that fails validation.
    """
    period = quarter_period(quarter, timezone)
    target = Path(out) if out is not None else Path(default_pack_name(period.label))
    generated_at = (now or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
    cases, policies, sources = load_cases(engine, period)
    pack_id = str(uuid.uuid4())
    members = build_members(
        cases,
        policies,
        sources,
        period=period,
        scheme=scheme,
        generated_at=generated_at,
        pack_id=pack_id,
    )
    data = zip_bytes(members, generated_at)
    signed = signature_path(target)
    if signing_key is not None:
        _refuse_existing(signed, overwrite=overwrite)  # before the pack is written
    _write_atomically(target, data, overwrite=overwrite)
    if signing_key is not None:  # after the pack: a signature never stands beside no pack
        _write_atomically(signed, sign_pack(data, signing_key), overwrite=True)
    return PackSummary(
        path=str(target),
        pack_id=pack_id,
        period=period.label,
        cases=len(cases),
        attempts=sum(len(case["attempts"]) for case in cases),
        citations=sum(a["counts"]["citations"] for case in cases for a in case["attempts"]),
        sha256=sha256_hex(data),
        size_bytes=len(data),
        signer=fingerprint(signing_key.public_key()) if signing_key is not None else None,
    )


__all__ = ["build_members", "default_pack_name", "export_pack", "load_cases", "quarter_period"]
