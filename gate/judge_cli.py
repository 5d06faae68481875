"""`lexgate judge calibrate FILE`: the judge's confusion matrix and threshold table."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from typing import TYPE_CHECKING, Annotated, Protocol

import typer

from gate.errors import JudgeError, RegeneratorConfigError
from verifier.cli import AsOf, RepositoryLoader, TodayLoader

if TYPE_CHECKING:
    from gate.models import Judgement, JudgeQuestion


class ClosableJudge(Protocol):
    """A judge holding connections (lexgate.llm.OpenAIJudge)."""

    def judge(self, question: JudgeQuestion) -> Judgement:
        """The probability of each relation."""
        ...

    def close(self) -> None:
        """Release the connections."""
        ...


def register(
    app: typer.Typer,
    repository_loader: RepositoryLoader,
    judge_loader: Callable[[], ClosableJudge],
    today_loader: TodayLoader,
) -> None:
    """Add the `judge` sub-app (calibrate) to the root command; judge_loader makes the
    configured judge (RegeneratorConfigError when none is)."""
    judge_app = typer.Typer(help="The optional model judge (docs/judge.md).", no_args_is_help=True)

    @judge_app.command("calibrate")
    def calibrate_command(
        file: Annotated[
            str,
            typer.Argument(
                help='JSONL of {"claim", "law", "article", "expected", "id"?, "as_of"?}.'
            ),
        ],
        as_of: AsOf = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    ) -> None:
        """Judge labelled items: confusion matrix, and per threshold 0.5-0.9 how many
        judgements stand, how many of those are right, how many go to review."""
        from gate.calibrate import calibrate, read_items, render_report

        try:
            today = date.fromisoformat(as_of) if as_of else today_loader()
        except ValueError:
            typer.echo(f"error: --as-of: not a date (YYYY-MM-DD): {as_of!r}", err=True)
            raise typer.Exit(2) from None
        try:
            items = read_items(file)
            judge = judge_loader()
        except (JudgeError, RegeneratorConfigError) as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(2) from None
        try:
            result = calibrate(items, judge, repository_loader(), today=today)
        except JudgeError as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(1) from None
        finally:
            judge.close()
        if as_json:
            data = result.model_dump(mode="json")
            data["accuracy"] = result.accuracy
            typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        else:
            typer.echo(render_report(result))

    app.add_typer(judge_app, name="judge")


__all__ = ["register"]
