"""`lexgate … --help` reads like a command's help: no Python type labels, no braces."""

from __future__ import annotations

import re

import pytest
import typer.main
import typer.testing
from typer.testing import CliRunner

from lexgate.cli import app
from tests.test_configuration_docs import COMMANDS

TYPE_LABEL = re.compile(r"<(?:bool|str|int|float|Path|path)>")
BRACED_NAME = re.compile(r"\{[a-z_]+\}")


@pytest.mark.parametrize("command", ["lexgate", *COMMANDS], ids=["lexgate", *COMMANDS])
def test_help_has_no_type_labels_or_braces(command: str) -> None:
    """Each command's help names arguments in capitals (FILE) and flags alone, as click does."""
    result = CliRunner().invoke(app, [*command.split()[1:], "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage: " in result.output
    assert not TYPE_LABEL.findall(result.output), result.output
    assert not BRACED_NAME.findall(result.output), result.output


def test_arguments_are_named_in_capitals() -> None:
    """`lexgate check --help`: the usage line names FILE, the table shows FILE and --as-of TEXT."""
    output = CliRunner().invoke(app, ["check", "--help"], env={"COLUMNS": "100"}).output
    assert "Usage: lexgate check [OPTIONS] FILE" in output
    assert re.search(r"--as-of\s+TEXT", output)


LINES = [
    *[[*command.split()[1:], "--help"] for command in ["lexgate", *COMMANDS]],
    [],
    ["chek"],
    ["check"],
    ["check", "--jobs", "x", "answer.txt"],
    ["db", "nosuch"],
]


@pytest.mark.parametrize("line", LINES, ids=[" ".join(line) or "(none)" for line in LINES])
def test_lazy_root_runs_as_the_whole_tree(line: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The root `app()` runs (building only the command named) prints what the group typer
    builds whole prints: every help text, usage error and suggestion."""
    whole = CliRunner().invoke(app, line, env={"COLUMNS": "100"})
    monkeypatch.setattr(typer.testing, "_get_command", lambda given: given.lazy_root())
    lazy = CliRunner().invoke(app, line, env={"COLUMNS": "100"})
    assert (lazy.exit_code, lazy.output) == (whole.exit_code, whole.output)


def test_lazy_root_builds_only_what_is_named() -> None:
    """Resolving `check` builds `check` alone; listing the names builds none."""
    root = app.lazy_root()
    names = list(root.commands)
    assert names == list(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    root.commands["check"]
    assert list(root.commands._built) == ["check"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("error", [ImportError, AttributeError, TypeError])
def test_typer_without_the_lazy_roots_internals_runs_its_own_way(
    error: type[Exception], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where another typer release lacks what the lazy root uses (its import or call fails),
    `app()` runs typer's own call: the same help, the same exit status."""
    with pytest.raises(SystemExit) as lazy:
        app(["db", "--help"], prog_name="lexgate")
    expected = capsys.readouterr().out

    def moved() -> None:
        raise error("typer.main has no get_group_from_info")

    monkeypatch.setattr(app, "lazy_root", moved)
    with pytest.raises(SystemExit) as whole:
        app(["db", "--help"], prog_name="lexgate")
    assert (whole.value.code, capsys.readouterr().out) == (lazy.value.code, expected)
    assert "Usage: lexgate db" in expected
