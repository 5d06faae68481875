"""`lexgate extract`: files, stdin, JSONL, the --lexicon option and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from extractor import Lexicon
from extractor.cli import register

ANSWER = "根据劳动合同法第八十二条规定，用人单位应当支付二倍的工资。"


def make_app(lexicon: Lexicon | None) -> typer.Typer:
    app = typer.Typer()
    register(app, lambda: lexicon)

    @app.command("noop")  # a second command keeps `extract` a named sub-command
    def noop() -> None:
        """Nothing."""

    return app


def invoke(app: typer.Typer, *args: str, stdin: str | None = None) -> str:
    result = CliRunner().invoke(app, list(args), input=stdin)
    assert result.exit_code == 0, result.output
    return result.output


def test_file(tmp_path: Path, lexicon: Lexicon) -> None:
    """A text file prints {"citations": [...]} with the lexicon of the loader."""
    path = tmp_path / "answer.txt"
    path.write_text(ANSWER, encoding="utf-8")
    output = invoke(make_app(lexicon), "extract", str(path))
    (citation,) = json.loads(output)["citations"]
    assert citation["law"] == "中华人民共和国劳动合同法"
    assert citation["article"] == 82
    assert citation["quote"]["text"] == "用人单位应当支付二倍的工资"


def test_stdin_without_lexicon() -> None:
    """- reads stdin; without a lexicon the bare name is kept as written."""
    output = invoke(make_app(None), "extract", "-", stdin=ANSWER)
    (citation,) = json.loads(output)["citations"]
    assert citation["law"] == "劳动合同法"


def test_jsonl_with_lexicon_file(tmp_path: Path) -> None:
    """--jsonl prints one line per answer (answer or text); --lexicon replaces the loader."""
    source = tmp_path / "answers.jsonl"
    lines = [{"id": "a", "answer": ANSWER}, {"id": 7, "text": "无引用。"}]
    source.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n\n")
    lexicon_path = tmp_path / "lexicon.json"
    lexicon_path.write_text(json.dumps({"劳动合同法": "劳动合同法（测试）"}), encoding="utf-8")
    output = invoke(
        make_app(None), "extract", "--jsonl", str(source), "--lexicon", str(lexicon_path)
    )
    first, second = (json.loads(line) for line in output.splitlines())
    assert first["id"] == "a" and first["citations"][0]["law"] == "劳动合同法（测试）"
    assert second == {"id": 7, "citations": []}


BAD = [
    ("missing-file", ["extract", "/nonexistent/answer.txt"]),
    ("bad-lexicon", ["extract", "-", "--lexicon", "/nonexistent/lexicon.json"]),
]


@pytest.mark.parametrize("args", [b[1] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_exits_with_usage_error(args: list[str]) -> None:
    """A missing file or lexicon is a usage error (exit code 2) naming the problem."""
    result = CliRunner().invoke(make_app(None), args, input="")
    assert result.exit_code == 2
    assert "nonexistent" in result.output


def test_jsonl_line_without_answer(tmp_path: Path) -> None:
    """A JSONL line without an answer or text string is a usage error."""
    source = tmp_path / "answers.jsonl"
    source.write_text('{"id": 1, "answer": 3}\n', encoding="utf-8")
    result = CliRunner().invoke(make_app(None), ["extract", "--jsonl", str(source)])
    assert result.exit_code == 2
    assert "line 1" in result.output
