"""`lexgate db …`: build, migrate and inspect the statute database."""

from __future__ import annotations

import typer

app = typer.Typer(help="Build, migrate and inspect the statute database.", no_args_is_help=True)
