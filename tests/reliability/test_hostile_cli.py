"""Hostile input on every CLI command: exit 0 with a correct result or a clear error, no crash."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexgate import cli
from lexgate.settings import get_settings
from tests.reliability.conftest import TestClient, bearer

FILES: dict[str, bytes] = {
    "empty": b"",
    "whitespace": " \n\t\u3000".encode(),
    "invalid-utf8": b"\xff\xfe\x80\xe4\xb8" + "民法典第一条".encode(),
    "nul-control": "根据\x00《中华人民共和国民法典》\x01第一条\x1b".encode(),
    "nested-brackets": ("《《〈" * 30_000).encode(),
    "di-1MB": ("第" * 350_000).encode(),
    "huge-article": "《中华人民共和国民法典》第九九九九九九九九九条".encode(),
    "sql-html": "《民法典'; DROP TABLE law;--》第一条<script>alert(1)</script>".encode(),
}
RAW_SUBJECT = "cli-raw-subject-77e0a1"
BAD_JSONL = b'{"id": 1, "answer": "\\u0000"}\nnot json\n[1, 2]\n{"answer": 5}\n'


@pytest.fixture(scope="module")
def cli_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A directory for the private stores (the instance's home)."""
    yield tmp_path_factory.mktemp("cli")


@pytest.fixture
def runner(
    gate_database_url: str, cli_database: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[CliRunner]:
    """A runner for `lexgate` over the gate database (settings and repository re-read)."""
    monkeypatch.setenv("LEXGATE_HOME", str(cli_database))
    monkeypatch.setenv("LEXGATE_DATABASE_URL", gate_database_url)
    monkeypatch.setenv("LEXGATE_MAPPING_STORE_PATH", str(cli_database / "map.sqlite3"))
    monkeypatch.setenv("LEXGATE_AUDIT_SECRET", "reliability-cli-secret-0123456789")
    monkeypatch.chdir(cli_database)
    if get_settings().home != cli_database.resolve():
        get_settings.cache_clear()
        cli._load_repository.cache_clear()
    yield CliRunner()


def _invoke(runner: CliRunner, args: list[str]) -> tuple[int, str]:
    result = runner.invoke(cli.app, args)
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed, (args, repr(result.exception), result.output[-500:])
    assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.output[-500:])
    return result.exit_code, result.output


@pytest.mark.parametrize("command", ["extract", "check", "gate"])
@pytest.mark.parametrize("name", FILES, ids=FILES)
def test_answer_commands_take_any_file(
    runner: CliRunner, tmp_path: Path, command: str, name: str
) -> None:
    """extract, check and gate on each hostile file: a result, or exit 2 naming the problem."""
    answer = tmp_path / "answer.txt"
    answer.write_bytes(FILES[name])
    code, output = _invoke(runner, [command, str(answer)])
    if name == "invalid-utf8":
        assert code == 2 and "UTF-8" in output
    else:
        assert code == 0, output[-500:]


@pytest.mark.parametrize("command", ["extract", "check", "gate"])
def test_bad_json_lines_are_a_usage_error(runner: CliRunner, tmp_path: Path, command: str) -> None:
    """A --jsonl file with lines that are not answer objects: exit 2 naming the line."""
    lines = tmp_path / "answers.jsonl"
    lines.write_bytes(BAD_JSONL)
    code, output = _invoke(runner, [command, str(lines), "--jsonl"])
    assert code == 2 and "line 2" in output


@pytest.mark.parametrize("as_of", ["2023-02-30", "99999-01-01", "", "2023-13-01", "今天"])
@pytest.mark.parametrize("command", ["check", "gate"])
def test_bad_dates_are_refused(runner: CliRunner, tmp_path: Path, command: str, as_of: str) -> None:
    """--as-of that is no date: exit 2 naming as_of."""
    answer = tmp_path / "answer.txt"
    answer.write_text("民法典第一条", encoding="utf-8")
    code, output = _invoke(runner, [command, str(answer), "--as-of", as_of])
    assert code == 2 and "as_of" in output


EXPORT_TRICKS = ["2026Q4/../../x", "../../etc/passwd", "2026Q9", "2026Q4\x00", "", "Q4", "9999Q4"]


@pytest.mark.parametrize("quarter", EXPORT_TRICKS, ids=[repr(q) for q in EXPORT_TRICKS])
def test_export_quarter_tricks_write_nothing(
    runner: CliRunner, cli_database: Path, quarter: str
) -> None:
    """audit export with a tricked quarter name: refused, and no file appears anywhere."""
    before = set(cli_database.rglob("*"))
    code, output = _invoke(runner, ["audit", "export", "--quarter", quarter])
    assert code != 0 and "quarter" in output.lower()
    assert set(cli_database.rglob("*")) == before


@pytest.mark.parametrize(
    "args",
    [
        ["audit", "trace", "subj_k1_'; DROP TABLE audit_case;--"],
        ["audit", "trace", ""],
        ["audit", "trace", "\x00" * 100],
        ["audit", "verify", "/etc/passwd"],
        ["audit", "verify", "/nonexistent/pack.zip"],
        ["apikey", "revoke", "'; DROP TABLE api_key;--"],
        ["apikey", "create", "--role", "root"],
        ["apikey", "create", "--role", "checker", "--name", "<script>\x00"],
        ["apikey", "create", "--role", "checker", "--name", "<script>'; DROP TABLE x;--"],
        ["judge", "calibrate", "/nonexistent.jsonl"],
    ],
    ids=lambda args: " ".join(args)[:40],
)
def test_other_commands_refuse_garbage(runner: CliRunner, args: list[str]) -> None:
    """Garbage arguments to the audit, apikey and judge commands: a message, no traceback."""
    code, output = _invoke(runner, args)
    if args[:2] == ["apikey", "create"] and "--name" in args and args[-1].isprintable():
        assert code == 0
    else:
        assert code != 0 and output.strip()


def test_export_never_names_a_raw_subject(
    runner: CliRunner, tmp_path: Path, gate_client: TestClient, gate_keys: dict[str, str]
) -> None:
    """An answer gated with a subject id over HTTP leaves no raw id in `lexgate audit export`."""
    gated = gate_client.post(
        "/api/v1/gate",
        json={"answer": "《中华人民共和国民法典》第一千零八十七条", "subject_id": RAW_SUBJECT},
        headers=bearer(gate_keys["checker"]),
    )
    assert gated.status_code == 200, gated.text[:300]
    today = date.today()
    quarter = f"{today.year}Q{(today.month - 1) // 3 + 1}"
    out = tmp_path / "pack.zip"
    code, output = _invoke(runner, ["audit", "export", "--quarter", quarter, "--out", str(out)])
    assert code == 0, output[-500:]

    with zipfile.ZipFile(out) as pack:
        texts = {
            name: pack.read(name).decode("utf-8", errors="replace") for name in pack.namelist()
        }
    assert any("subj_" in text for text in texts.values())  # the cases are there, pseudonymous
    for name, text in texts.items():
        assert RAW_SUBJECT not in text, name
        if name.endswith(".json"):
            json.loads(text)
