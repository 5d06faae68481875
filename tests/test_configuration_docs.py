"""Every `lexgate` command and every setting is documented in docs/configuration.md."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main

from lexgate.cli import app
from lexgate.settings import Settings

DOCS = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def _command_paths(command: Any, path: tuple[str, ...]) -> Iterator[str]:
    subcommands = getattr(command, "commands", None)
    if subcommands:
        for name, sub in sorted(subcommands.items()):
            yield from _command_paths(sub, (*path, name))
    else:
        yield " ".join(path)


COMMANDS = sorted(_command_paths(typer.main.get_command(app), ("lexgate",)))
SETTINGS = sorted(f"LEXGATE_{name.upper()}" for name in Settings.model_fields)


def test_the_walk_finds_the_database_commands() -> None:
    """The command walk reaches nested sub-commands (guards the tests below)."""
    assert {"lexgate db init", "lexgate db stats", "lexgate db migrate upgrade"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS, ids=COMMANDS)
def test_command_is_documented(command: str) -> None:
    """The command appears, in backticks, in docs/configuration.md."""
    assert f"`{command}" in DOCS.read_text(encoding="utf-8")


@pytest.mark.parametrize("variable", SETTINGS, ids=SETTINGS)
def test_setting_is_documented(variable: str) -> None:
    """The setting's environment variable appears, in backticks, in docs/configuration.md."""
    assert f"`{variable}`" in DOCS.read_text(encoding="utf-8")
