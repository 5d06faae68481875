"""`lexgate check`: verify the citations of an answer (text or JSON lines)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from typing import Annotated

import typer
from rich.console import Console

from legaldb import StatuteRepository
from verifier.check import check, today
from verifier.errors import InputError
from verifier.inputs import jsonl_items, parse_as_of, read_input
from verifier.render import render_answer
from verifier.serialize import result_to_json, summary_to_json, verdict_to_json


def check_jsonl_lines(lines: list[str], repo: StatuteRepository, default_as_of: date) -> list[str]:
    """One output line {"id", "citations", "summary"} per input line {"id", "answer", "as_of"?}."""
    out = []
    for _, item, answer in jsonl_items(lines):
        result = check(answer, repo, parse_as_of(item.get("as_of"), default_as_of))
        out.append(
            json.dumps(
                {
                    "id": item.get("id"),
                    "as_of": result.as_of,
                    "citations": [verdict_to_json(v) for v in result.verdicts],
                    "summary": summary_to_json(result.summary),
                },
                ensure_ascii=False,
            )
        )
    return out


def register(app: typer.Typer, repository_loader: Callable[[], StatuteRepository]) -> None:
    """Add `check` to the root command."""

    @app.command("check")
    def check_command(
        file: Annotated[str, typer.Argument(help="The answer: a file, or - for standard input.")],
        as_of: Annotated[
            str | None, typer.Option("--as-of", help="Check as of this date (YYYY-MM-DD).")
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
        jsonl: Annotated[
            bool, typer.Option("--jsonl", help='FILE holds lines {"id", "answer", "as_of"?}.')
        ] = False,
    ) -> None:
        """Verify every statute citation of an answer as of a date (default: today)."""
        try:
            default_as_of = parse_as_of(as_of, today())
            text = read_input(file)
            repo = repository_loader()
            if jsonl:
                for line in check_jsonl_lines(text.splitlines(), repo, default_as_of):
                    typer.echo(line)
                return
            result = check(text, repo, default_as_of)
        except InputError as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(2) from None
        if as_json:
            typer.echo(json.dumps(result_to_json(result), ensure_ascii=False, indent=2))
        else:
            Console(highlight=False, soft_wrap=True).print(render_answer(text, result))
