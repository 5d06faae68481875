"""`lexgate.cli.PlainValues` converts a parameter's value as typer's own conversion does: the
same value, or the same error, for every parameter of every command."""

from __future__ import annotations

from typing import Any

import pytest
import typer.main
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param

from lexgate.cli import PlainValues, app

VALUES = ["", "x", "0", "7", "007", "-1", " 3", "+3", "1_0", "３", "3.0", "2026-12-01", 0, 5, -2,
          None, True, False]  # fmt: skip


def _parameters() -> list[tuple[Any, Any]]:
    found = []

    def walk(command: Any) -> None:
        for param in command.params:
            if hasattr(param, "type_descriptor"):
                found.append((command, param))
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(typer.main.get_command(app))
    return found


def _converted(converter: Any, value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    try:
        return "value", converter.coerce(value, param=param, ctx=ctx)
    except BadParameter as error:
        return "error", error.format_message()


PARAMETERS = _parameters()


@pytest.mark.parametrize(
    ("command", "param"), PARAMETERS, ids=[f"{c.name}:{p.name}" for c, p in PARAMETERS]
)
def test_plain_values_convert_as_typer_does(command: Any, param: Any) -> None:
    """Each value of VALUES gives the same result (value and type, or error message)
    through PlainValues as through typer's pydantic conversion."""
    ctx = typer.Context(command)
    plain, full = PlainValues(param.type_descriptor), build_runtime_param(param.type_descriptor)
    for value in VALUES:
        got, expected = _converted(plain, value, param, ctx), _converted(full, value, param, ctx)
        assert got == expected and type(got[1]) is type(expected[1]), (value, got, expected)


def test_check_parameters_are_converted_without_pydantic() -> None:
    """The check command's parameters are all ones PlainValues converts itself (a str, an
    int within its bounds): a check never builds typer's pydantic conversion."""
    check = typer.main.get_command(app).commands["check"]  # type: ignore[attr-defined]
    ctx = typer.Context(check)
    for param in check.params:
        plain = PlainValues(param.type_descriptor)
        value = {str: "x", int: "1", bool: False}[param.type_descriptor.annotation]
        plain.coerce(value, param=param, ctx=ctx)
        assert plain._full is None, param.name
