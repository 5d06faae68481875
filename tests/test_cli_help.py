"""`lexgate … --help` reads like a command's help: no Python type labels, no braces."""

from __future__ import annotations

import re

import pytest
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
