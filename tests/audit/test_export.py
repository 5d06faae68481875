"""Quarterly evidence packs from real gated answers, on both databases."""

from __future__ import annotations

import json
import typing
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from jsonschema import Draft202012Validator
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

import gate
from audit import MappingStore, Pseudonymizer, export_pack, record_many, verify_pack
from audit.errors import ExportError
from audit.export import quarter_period
from audit.models import Recording
from audit.pack import MEMBERS
from audit.recorder import CASE_TABLE
from audit.signing import public_key_pem
from gate.models import INVENTED_SIGNALS, Decision, RoundState
from gate.standards import DEPRECATED_SIGNALS
from legaldb import StatuteRepository
from lexgate.cli import app
from lexgate.settings import get_settings
from tests.audit.conftest import (
    AS_OF,
    ONLY_SQLITE_STATUTES,
    RAW_SESSION,
    RAW_SUBJECT,
    SECRET,
    SEEDS,
    ZONE,
    seeded,
)
from verifier.models import STATUSES

SCHEMAS = Path(__file__).resolve().parents[2] / "audit" / "schemas"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "audit.md"
SHANGHAI = timezone(timedelta(hours=8))
INVENTED_AND_REPEALED = (
    "根据《中华人民共和国民法典》第一千三百条，合同无效。\n"
    "依照《中华人民共和国合同法》第五十二条，恶意串通的合同无效。"
)

# When each special case is recorded, and the quarter (Asia/Shanghai) it belongs to.
BOUNDARY_TIMES = [
    (datetime(2026, 7, 1, 0, 0, tzinfo=SHANGHAI), "2026Q3"),
    (datetime(2026, 9, 30, 15, 59, 59, tzinfo=UTC), "2026Q3"),  # 23:59:59 in Shanghai
    (datetime(2026, 9, 30, 16, 0, tzinfo=UTC), "2026Q4"),  # 00:00 on 1 October in Shanghai
    (datetime(2026, 12, 31, 15, 59, 59, 999999, tzinfo=UTC), "2026Q4"),
    (datetime(2026, 12, 31, 16, 0, tzinfo=UTC), "2027Q1"),
]


def round_of(
    repo: StatuteRepository, question: str, answers: list[str], session_id: str
) -> gate.RoundRecord:
    """A round of real answers to one question: the next answer is the rerun, while asked."""
    round_ = gate.open_round(session_id=session_id, question=question, as_of=AS_OF)
    for answer in answers:
        round_ = gate.submit(round_, answer, repo=repo)
        if round_.state != "open":
            break
    return round_


@pytest.fixture
def recorded(
    audit_engine: Engine,
    statute_repository: StatuteRepository,
    dev_answers: list[dict[str, Any]],
    pseudonymizer: Pseudonymizer,
    store: MappingStore,
) -> dict[str, list[str]]:
    """Real gated rounds recorded in 2026Q3, 2026Q4 and 2027Q1: case ids by quarter, oldest first.

    The first 36 answers of the development set, each opening a round whose reruns are other
    models' answers to its question; personal data seeded into every third; one round of a
    constructed answer with an invented article and a repealed law; cases at the boundaries.
    """
    by_question: dict[str, list[str]] = {}
    for item in dev_answers:
        by_question.setdefault(item["question"], []).append(item["answer"])
    recordings = []
    quarters = []
    for index, item in enumerate(dev_answers[:36]):
        answers = [a for a in by_question[item["question"]] if a != item["answer"]]
        first = seeded(item["answer"]) if index % 3 == 0 else item["answer"]
        question = seeded(item["question"]) if index % 3 == 0 else item["question"]
        round_ = round_of(
            statute_repository, question, [first, *answers[:2]], f"{RAW_SESSION}-{index}"
        )
        if index < 12:  # Q3, from 2 July on
            moment, quarter = (
                datetime(2026, 7, 2, tzinfo=SHANGHAI) + timedelta(days=index),
                "2026Q3",
            )
        else:
            moment, quarter = (
                datetime(2026, 10, 2, tzinfo=SHANGHAI) + timedelta(hours=index),
                "2026Q4",
            )
        recordings.append(Recording(round_, f"{RAW_SUBJECT}-{index % 5}", recorded_at=moment))
        quarters.append(quarter)
    special = round_of(statute_repository, None, [INVENTED_AND_REPEALED], f"{RAW_SESSION}-x")
    for moment, quarter in BOUNDARY_TIMES:
        recordings.append(Recording(special, f"{RAW_SUBJECT}-x", recorded_at=moment))
        quarters.append(quarter)
    case_ids = record_many(
        audit_engine, recordings, repo=statute_repository, pseudonymizer=pseudonymizer, store=store
    )
    by_quarter: dict[str, list[str]] = {}
    moments = [recording.recorded_at for recording in recordings]
    for _, case_id, quarter in sorted(zip(moments, case_ids, quarters, strict=True)):
        by_quarter.setdefault(quarter, []).append(case_id)
    return by_quarter


def pack_files(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def cases_of(files: dict[str, bytes]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in files["cases.jsonl"].decode().splitlines()]


@ONLY_SQLITE_STATUTES
def test_the_pack_of_a_quarter_validates_and_holds_its_cases(
    recorded: dict[str, list[str]],
    audit_engine: Engine,
    pseudonymizer: Pseudonymizer,
    tmp_path: Path,
) -> None:
    """The 2026Q4 pack passes verify, lists exactly the quarter's cases oldest first, and each
    file validates against the schema shipped inside it."""
    out = tmp_path / "q4.zip"
    summary = export_pack(audit_engine, "2026Q4", out, timezone=ZONE, scheme=pseudonymizer.scheme)
    assert verify_pack(out) == summary
    files = pack_files(out)
    assert tuple(files) == MEMBERS
    cases = cases_of(files)
    assert [case["case_id"] for case in cases] == recorded["2026Q4"]
    assert summary.cases == len(cases) and summary.attempts > summary.cases  # reruns recorded
    manifest = json.loads(files["manifest.json"])
    for member, schema in (
        ("manifest.json", "manifest"),
        ("clusters.json", "clusters"),
        ("cases.jsonl", "cases"),
    ):
        validator = Draft202012Validator(json.loads(files[f"schemas/{schema}.schema.json"]))
        instances = cases if member == "cases.jsonl" else [json.loads(files[member])]
        assert [error.message for i in instances for error in validator.iter_errors(i)] == []
    assert manifest["period"] == {
        "quarter": "2026Q4",
        "timezone": "Asia/Shanghai",
        "start": "2026-10-01T00:00:00+08:00",
        "end": "2027-01-01T00:00:00+08:00",
    }
    assert manifest["pseudonym_scheme"]["key_id"] == "k1"
    assert manifest["pseudonym_scheme"]["key_ids_in_pack"] == ["k1"]
    assert SECRET.decode() not in files["manifest.json"].decode()
    assert manifest["gate_policies"] == [
        {
            "policy_id": cases[0]["policy_id"],
            "policy": gate.Policy().model_dump(mode="json"),
            "cases": len(cases),
        }
    ]


@ONLY_SQLITE_STATUTES
def test_two_quarters_share_no_case(
    recorded: dict[str, list[str]],
    audit_engine: Engine,
    pseudonymizer: Pseudonymizer,
    tmp_path: Path,
) -> None:
    """Each case is in the pack of exactly one quarter: the one (Asia/Shanghai) it was
    recorded in, boundaries included."""
    found = {}
    for quarter in ("2026Q3", "2026Q4", "2027Q1"):
        out = tmp_path / f"{quarter}.zip"
        export_pack(audit_engine, quarter, out, timezone=ZONE, scheme=pseudonymizer.scheme)
        found[quarter] = [case["case_id"] for case in cases_of(pack_files(out))]
    assert found == recorded
    assert set(found["2026Q3"]).isdisjoint(found["2026Q4"])
    everything = [case_id for ids in found.values() for case_id in ids]
    assert len(everything) == len(set(everything)) == sum(map(len, recorded.values()))


@ONLY_SQLITE_STATUTES
def test_no_raw_id_or_personal_data_in_any_byte(
    recorded: dict[str, list[str]],
    audit_engine: Engine,
    pseudonymizer: Pseudonymizer,
    tmp_path: Path,
) -> None:
    """Neither the pack (its bytes, and each member as read back) nor the audit tables hold a
    raw subject or session id or any seeded phone, 身份证号, e-mail or card number."""
    out = tmp_path / "q4.zip"
    export_pack(audit_engine, "2026Q4", out, timezone=ZONE, scheme=pseudonymizer.scheme)
    raw = out.read_bytes()
    members = pack_files(out)
    texts = [raw, *members.values()]
    for seed in SEEDS:
        for form in {seed.encode(), json.dumps(seed).encode(), seed.encode("utf-16-le")}:
            assert not [text for text in texts if form in text], seed
    with audit_engine.connect() as connection:
        dump = repr(
            [
                list(connection.execute(sa.select(table)))
                for table in CASE_TABLE.metadata.sorted_tables
                if table.name.startswith("audit_")
            ]
        )
    assert not [seed for seed in SEEDS if seed in dump]
    assert "[手机号]" in members["cases.jsonl"].decode()  # the seeded conclusions are exported


@ONLY_SQLITE_STATUTES
def test_invented_articles_and_repealed_laws_carry_the_real_facts(
    recorded: dict[str, list[str]],
    audit_engine: Engine,
    pseudonymizer: Pseudonymizer,
    tmp_path: Path,
) -> None:
    """An invented 民法典 article comes with the code's real 1,260 articles; 合同法 with the
    date it was repealed; both in the case and in the clusters."""
    out = tmp_path / "q4.zip"
    export_pack(audit_engine, "2026Q4", out, timezone=ZONE, scheme=pseudonymizer.scheme)
    files = pack_files(out)
    special = [c for c in cases_of(files) if c["session"] == cases_of(files)[0]["session"]]
    assert len(special) == 2  # the first and the last case of Q4 are the constructed answer
    for case in special:
        assert {
            "attempt": 1,
            "signal": "article_not_found",
            "law": "中华人民共和国民法典",
            "article": "第一千三百条",
            "provision": "《中华人民共和国民法典》第一千三百条",
            "article_count": 1260,
            "paragraph_count": None,
            "item_count": None,
        } in case["invented_articles"]
        assert {
            "attempt": 1,
            "signal": "repealed",
            "law": "中华人民共和国合同法",
            "provision": "《中华人民共和国合同法》第五十二条",
            "repealed_on": "2021-01-01",
        } in case["repealed_provisions"]
    clusters = json.loads(files["clusters.json"])
    assert {
        "law": "中华人民共和国民法典",
        "article": "第一千三百条",
        "article_count": 1260,
        "answers": 2,
        "cases": 2,
    } in clusters["invented_articles"]
    contract_law = [r for r in clusters["repealed_laws"] if r["law"] == "中华人民共和国合同法"]
    assert contract_law and contract_law[0]["repealed_on"] == "2021-01-01"
    assert contract_law[0]["cases"] >= 2
    total = clusters["citations"]["total"]
    assert (
        total
        == sum(clusters["citations"]["by_status"].values())
        == json.loads(files["manifest.json"])["counts"]["citations"]
    )


@ONLY_SQLITE_STATUTES
def test_an_export_that_fails_validation_writes_nothing(
    recorded: dict[str, list[str]],
    audit_engine: Engine,
    pseudonymizer: Pseudonymizer,
    tmp_path: Path,
) -> None:
    """A record the schema refuses (a state no round has) stops the export: no file, no
    temporary file left."""
    with audit_engine.begin() as connection:
        connection.execute(
            CASE_TABLE.update()
            .where(CASE_TABLE.c.case_id == recorded["2026Q4"][0])
            .values(state="vanished")
        )
    packs = tmp_path / "packs"
    packs.mkdir()
    with pytest.raises(ExportError, match="'vanished' is not one of"):
        export_pack(
            audit_engine, "2026Q4", packs / "q4.zip", timezone=ZONE, scheme=pseudonymizer.scheme
        )
    assert list(packs.iterdir()) == []


@ONLY_SQLITE_STATUTES
def test_an_existing_pack_is_replaced_only_when_asked(
    recorded: dict[str, list[str]],
    audit_engine: Engine,
    pseudonymizer: Pseudonymizer,
    tmp_path: Path,
) -> None:
    """Exporting over an existing file is refused unless overwrite is given."""
    out = tmp_path / "q4.zip"
    first = export_pack(audit_engine, "2026Q4", out, timezone=ZONE, scheme=pseudonymizer.scheme)
    with pytest.raises(ExportError, match="exists"):
        export_pack(audit_engine, "2026Q4", out, timezone=ZONE, scheme=pseudonymizer.scheme)
    assert verify_pack(out).pack_id == first.pack_id
    second = export_pack(
        audit_engine, "2026Q4", out, timezone=ZONE, scheme=pseudonymizer.scheme, overwrite=True
    )
    assert verify_pack(out).pack_id == second.pack_id != first.pack_id


def test_an_empty_quarter_gives_a_valid_empty_pack(
    audit_engine: Engine, pseudonymizer: Pseudonymizer, tmp_path: Path
) -> None:
    """A quarter without any case still gets a pack that verifies, with zero counts."""
    out = tmp_path / "empty.zip"
    summary = export_pack(audit_engine, "2026Q1", out, timezone=ZONE, scheme=pseudonymizer.scheme)
    assert (summary.cases, summary.attempts, summary.citations) == (0, 0, 0)
    assert verify_pack(out).cases == 0


@pytest.mark.parametrize(
    ("moment", "zone", "expected"),
    [(moment, "Asia/Shanghai", quarter) for moment, quarter in BOUNDARY_TIMES]
    + [
        (datetime(2026, 9, 30, 16, 0, tzinfo=UTC), "UTC", "2026Q3"),
        (datetime(2026, 10, 1, 0, 0, tzinfo=UTC), "UTC", "2026Q4"),
        (datetime(2027, 1, 1, 4, 59, tzinfo=UTC), "America/New_York", "2026Q4"),
    ],
    ids=[
        "shanghai-q3-start",
        "shanghai-q3-last-second",
        "shanghai-q4-first-second",
        "shanghai-q4-last-microsecond",
        "shanghai-2027q1-start",
        "utc-still-q3",
        "utc-q4-start",
        "new-york-still-q4",
    ],
)
def test_quarters_are_taken_in_the_timezone(moment: datetime, zone: str, expected: str) -> None:
    """A moment falls in exactly one quarter of the configured timezone, [start, end)."""
    containing = [
        label
        for label in ("2026Q2", "2026Q3", "2026Q4", "2027Q1")
        if (period := quarter_period(label, zone)).start <= moment < period.end
    ]
    assert containing == [expected]


@pytest.mark.parametrize(
    "quarter",
    ["2026Q5", "2026Q0", "2026-Q4", "Q4", "2026", "1979Q4", ""],
    ids=["q5", "q0", "dash", "no-year", "no-quarter", "before-1980", "empty"],
)
def test_a_malformed_quarter_is_refused(quarter: str) -> None:
    """Only YYYYQn names a quarter (1980 or later: zip times start then)."""
    with pytest.raises(ExportError):
        quarter_period(quarter, "Asia/Shanghai")


def test_an_unknown_timezone_is_refused() -> None:
    """A timezone name the tz database does not know is an error, not UTC."""
    with pytest.raises(ExportError, match="timezone"):
        quarter_period("2026Q4", "Mars/Olympus_Mons")


def _enum(schema: dict[str, Any], *path: str) -> list[Any]:
    node: Any = schema
    for key in path:
        node = node[key]
    return list(node["enum"])


def test_the_schemas_enumerate_what_the_gate_and_verifier_produce() -> None:
    """The closed lists of the schemas (decisions, states, statuses, invented and repealed
    signals) are exactly the gate's and the verifier's, so an export never fails on them."""
    cases = json.loads((SCHEMAS / "cases.schema.json").read_text())
    attempt = cases["properties"]["attempts"]["items"]["properties"]
    assert _enum(attempt, "decision") == list(typing.get_args(Decision))
    assert _enum(cases, "$defs", "state") == list(typing.get_args(RoundState))
    assert _enum(cases, "$defs", "status") == list(STATUSES)
    invented = cases["properties"]["invented_articles"]["items"]["properties"]["signal"]["enum"]
    assert set(invented) == set(INVENTED_SIGNALS)
    repealed = cases["properties"]["repealed_provisions"]["items"]["properties"]["signal"]
    assert set(repealed["enum"]) == set(DEPRECATED_SIGNALS)


@pytest.mark.parametrize(
    "name",
    ["manifest.schema.json", "clusters.schema.json", "cases.schema.json"],
    ids=["manifest", "clusters", "cases"],
)
def test_each_schema_is_rendered_in_the_docs(name: str) -> None:
    """docs/audit.md shows every schema as shipped (audit/schemas), byte for byte."""
    Draft202012Validator.check_schema(json.loads((SCHEMAS / name).read_text()))
    assert (SCHEMAS / name).read_text(encoding="utf-8").strip() in DOCS.read_text(encoding="utf-8")


@pytest.fixture
def cli_settings(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    monkeypatch.setenv("LEXGATE_DATABASE_URL", database_url)
    monkeypatch.setenv("LEXGATE_MAPPING_STORE_PATH", str(tmp_path / "private" / "map.sqlite3"))
    monkeypatch.setenv("LEXGATE_AUDIT_SECRET", SECRET.decode())
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@ONLY_SQLITE_STATUTES
def test_cli_exports_and_verifies_a_pack(
    cli_settings: None, recorded: dict[str, list[str]], tmp_path: Path
) -> None:
    """`lexgate audit export --quarter --out` writes a pack and its sha256; `audit verify`
    accepts it and rejects a damaged copy with a message, exit 1."""
    out = tmp_path / "q4.zip"
    exported = CliRunner().invoke(
        app, ["audit", "export", "--quarter", "2026Q4", "--out", str(out)]
    )
    assert exported.exit_code == 0, exported.output
    assert f"{len(recorded['2026Q4'])} cases" in exported.output and "sha256" in exported.output
    verified = CliRunner().invoke(app, ["audit", "verify", str(out)])
    assert verified.exit_code == 0 and verified.output.startswith("OK ")
    damaged = tmp_path / "damaged.zip"
    data = bytearray(out.read_bytes())
    data[len(data) // 2] ^= 0x01
    damaged.write_bytes(bytes(data))
    rejected = CliRunner().invoke(app, ["audit", "verify", str(damaged)])
    assert rejected.exit_code == 1 and "INVALID" in rejected.output
    again = CliRunner().invoke(app, ["audit", "export", "--quarter", "2026Q4", "--out", str(out)])
    assert again.exit_code == 1 and "exists" in again.output
    bad = CliRunner().invoke(app, ["audit", "export", "--quarter", "2026Q9"])
    assert bad.exit_code == 1 and "not a quarter" in bad.output


@ONLY_SQLITE_STATUTES
def test_cli_signs_packs_and_verify_checks_the_signature(
    cli_settings: None,
    recorded: dict[str, list[str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """export writes PACK.sig; `audit public-key` prints the key auditors get; verify checks
    the signature with it, and names a pack signed by another key or a signature edited."""
    monkeypatch.setenv("LEXGATE_AUDIT_SIGNING_KEY_PATH", str(tmp_path / "private" / "sign.pem"))
    get_settings.cache_clear()
    runner = CliRunner()
    missing = runner.invoke(app, ["audit", "public-key"])
    assert missing.exit_code == 1 and "`lexgate audit init`" in missing.output
    initialised = runner.invoke(app, ["audit", "init"])
    assert initialised.exit_code == 0 and "pack signing key: created" in initialised.output
    out = tmp_path / "q4.zip"
    exported = runner.invoke(app, ["audit", "export", "--quarter", "2026Q4", "--out", str(out)])
    assert exported.exit_code == 0, exported.output
    assert f"signed: {out}.sig by key SHA256:" in exported.output
    printed = runner.invoke(app, ["audit", "public-key"])
    assert printed.exit_code == 0 and printed.stdout.startswith("-----BEGIN PUBLIC KEY-----")
    public = tmp_path / "server.pub"
    public.write_text(printed.stdout)

    unchecked = runner.invoke(app, ["audit", "verify", str(out)])
    assert (
        unchecked.exit_code == 0 and "not checked: give the server's public key" in unchecked.output
    )
    checked = runner.invoke(app, ["audit", "verify", str(out), "--public-key", str(public)])
    assert (
        checked.exit_code == 0 and "signature OK: signed by the given key SHA256:" in checked.output
    )

    stranger = tmp_path / "stranger.pub"
    stranger.write_text(public_key_pem(Ed25519PrivateKey.generate()))
    refused = runner.invoke(app, ["audit", "verify", str(out), "--public-key", str(stranger)])
    assert refused.exit_code == 1 and "not by the given key" in refused.output
    signature = Path(f"{out}.sig")
    signature.write_text(signature.read_text().replace('"signature": "', '"signature": "AAAA'))
    forged = runner.invoke(app, ["audit", "verify", str(out), "--public-key", str(public)])
    assert forged.exit_code == 1 and "does not verify" in forged.output
    signature.unlink()
    missing = runner.invoke(app, ["audit", "verify", str(out), "--public-key", str(public)])
    assert missing.exit_code == 1 and "signature file" in missing.output
