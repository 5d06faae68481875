"""`lexgate gate`: one answer (text or JSON) and JSON lines, on the real statute data."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from gate.cli import register
from legaldb import StatuteRepository
from tests.gate.test_scenarios import CORRECTED, INVENTED, LOCAL_ONLY, QUESTION, REPEALED

LINE_KEYS = {"id", "decision", "verifiable_rate", "standards", "rerun_request", "facts"}


@pytest.fixture
def app(statute_repository: StatuteRepository) -> typer.Typer:
    """A root command with only `gate`, over the test repository, today being 2024-01-01."""
    root = typer.Typer()
    register(root, lambda: statute_repository, lambda: date(2024, 1, 1))

    @root.command("noop")
    def noop() -> None:
        """Keeps typer from folding the single command into the root."""

    return root


def test_one_answer_as_json(app: typer.Typer, tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text(INVENTED, encoding="utf-8")
    result = CliRunner().invoke(app, ["gate", str(answer), "--question", QUESTION, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["decision"], data["verifiable_rate"], data["as_of"]) == (
        "rerun",
        0.0,
        "2024-01-01",
    )
    request = data["rerun_request"]
    assert request["messages"][1]["content"] == QUESTION
    assert "共 1260 条" in request["messages"][-1]["content"]


def test_standard_input_and_as_of(app: typer.Typer) -> None:
    result = CliRunner().invoke(
        app, ["gate", "-", "--as-of", "2024-01-01", "--json"], input=CORRECTED
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["decision"] == "pass" and data["rerun_request"] is None


def test_human_output_names_the_decision_and_standards(app: typer.Typer) -> None:
    result = CliRunner().invoke(app, ["gate", "-"], input=INVENTED)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("rerun · verifiable rate 0.00 (0/1 provisions)")
    assert "✗ no_invented_articles" in result.output
    assert "rerun request (attempt 2)" in result.output
    assert "[system]" in result.output and "[assistant]" in result.output


def test_jsonl(app: typer.Typer, tmp_path: Path) -> None:
    lines = [
        {"id": "a", "question": QUESTION, "answer": INVENTED},
        {"id": "b", "answer": LOCAL_ONLY},
        {"id": "c", "answer": "您可以要求赔偿。"},
        {"id": "d", "answer": INVENTED, "as_of": "2020-06-01"},
    ]
    source = tmp_path / "answers.jsonl"
    source.write_text(
        "\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["gate", "--jsonl", str(source)])
    assert result.exit_code == 0, result.output
    out = [json.loads(line) for line in result.output.splitlines()]
    assert all(set(line) >= LINE_KEYS for line in out)
    assert [(line["id"], line["decision"]) for line in out] == [
        ("a", "rerun"),
        ("b", "pass_boundary"),
        ("c", "no_citations"),
        ("d", "rerun"),
    ]
    assert out[0]["rerun_request"]["session_id"] == "a"
    assert out[1]["rerun_request"] is None and out[1]["facts"] == []
    assert out[3]["as_of"] == "2020-06-01"
    assert len(out[0]["standards"]) == 7
    assert out[0]["standards"][0]["name"] == "verifiable_rate"


def test_strict_mode_reruns_one_invented_article_among_good_ones(app: typer.Typer) -> None:
    answer = "".join(
        f"本案适用《中华人民共和国民法典》第{n}条。"
        for n in ("一千一百六十五", "五百七十七", "一千零八十七", "一千二百八十九")
    )
    plain = json.loads(CliRunner().invoke(app, ["gate", "-", "--json"], input=answer).output)
    strict = CliRunner().invoke(app, ["gate", "-", "--json", "--strict"], input=answer)
    assert (plain["decision"], plain["verifiable_rate"]) == ("pass", 0.75)
    assert json.loads(strict.output)["decision"] == "rerun"


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["gate", "-", "--as-of", "2024-13-01"], "答", "not a valid date"),
        (["gate", "/no/such/file"], None, "no such file"),
        (["gate", "--jsonl", "-"], "not json\n", "line 1: not JSON"),
        (["gate", "--jsonl", "-"], '{"id": 1}\n', "field 'answer' (or 'text') must be a string"),
        (["gate", "--jsonl", "-"], '{"answer": "a", "as_of": "soon"}\n', "not a valid date"),
    ],
    ids=["bad_date", "missing_file", "bad_json", "no_answer", "bad_line_date"],
)
def test_bad_input_exits_2(
    app: typer.Typer, args: list[str], stdin: str | None, message: str
) -> None:
    result = CliRunner().invoke(app, args, input=stdin)
    assert result.exit_code == 2
    assert message in result.output


def test_text_output_is_not_wrapped_when_piped(app: typer.Typer, tmp_path: Path) -> None:
    """Piped (CliRunner is no terminal), every fact and evidence note stays on its own line:
    no break inside a word (《中华人民共\\n和国…》), no line left as a bare "— " or "- "."""
    answer = tmp_path / "answer.txt"
    answer.write_text(REPEALED + INVENTED, encoding="utf-8")
    shown = CliRunner().invoke(app, ["gate", str(answer), "--question", QUESTION])
    as_json = CliRunner().invoke(app, ["gate", str(answer), "--question", QUESTION, "--json"])
    assert shown.exit_code == as_json.exit_code == 0, shown.output
    facts = [fact["text"] for fact in json.loads(as_json.output)["facts"]]
    assert len(facts) == 2 and all(len(fact) > 40 for fact in facts)  # > 80 columns wide
    lines = shown.output.splitlines()
    for fact in facts:
        assert f"  - {fact}" in lines
    assert not [line for line in lines if line.rstrip().endswith(("—", "-"))]
