"""The `lexgate` command: assembles the sub-commands that live beside their packages."""

from __future__ import annotations

import typer

from legaldb.cli import app as db_app

app = typer.Typer(
    name="lexgate",
    help="LexGate: check statute citations in legal QA answers.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(db_app, name="db")


if __name__ == "__main__":  # pragma: no cover
    app()
