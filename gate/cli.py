"""`lexgate gate`: the gate's decision on an answer (text, or JSON lines)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import date
from typing import TYPE_CHECKING, Annotated, Any

import typer

from verifier.cli import AnswerFile, AsOf, Jobs, PrintJson, RepositoryLoader, TodayLoader
from verifier.errors import InputError
from verifier.inputs import as_of_or_today, read_input

if TYPE_CHECKING:
    from rich.console import Console

    from gate.models import GateResult
    from gate.policy import Policy
    from legaldb.repository import StatuteRepository


def result_line(item_id: object, result: GateResult) -> dict[str, Any]:
    """The JSON of one --jsonl output line."""
    data = result.model_dump(mode="json")
    return {
        "id": item_id,
        "as_of": data["as_of"],
        "decision": data["decision"],
        "verifiable_rate": data["verifiable_rate"],
        "counts": data["counts"],
        "standards": data["standards"],
        "rerun_request": data["rerun_request"],
        "facts": data["facts"],
    }


def gate_jsonl_lines(
    lines: Sequence[str],
    repo: StatuteRepository,
    default_as_of: date,
    policy: Policy,
    *,
    jobs: int = 1,
) -> Iterator[str]:
    """One line {"id", "decision", …} per input line {"id", "question"?, "answer", "as_of"?};
    `jobs`: as verifier.batch.workers_for."""
    from gate.assessment import assess_answer
    from gate.models import Turn
    from verifier.batch import cited_law, map_jsonl, workers_for

    def line(item: dict[str, Any], answer: str, as_of: date) -> str:
        item_id = item.get("id")
        session_id = str(item_id) if item_id not in (None, "") else None
        result = assess_answer(
            answer,
            repo=repo,
            as_of=as_of,
            turn=Turn(question=item.get("question"), session_id=session_id),
            policy=policy,
        ).result
        return json.dumps(result_line(item_id, result), ensure_ascii=False)

    workers = workers_for(jobs, len(lines))
    yield from map_jsonl(
        line, lines, default_as_of, jobs=workers, after_fork=repo.after_fork, affinity=cited_law
    )


def print_result(result: GateResult, console: Console) -> None:
    """The decision, the standards, the facts and the rerun request, for a person."""
    from rich.markup import escape

    rate = "—" if result.verifiable_rate is None else f"{result.verifiable_rate:.2f}"
    counts = result.counts
    console.print(
        f"[bold]{result.decision}[/bold] · verifiable rate {rate} "
        f"({counts.verifiable}/{counts.provisions} provisions) · as of {result.as_of}"
    )
    for standard in result.standards:
        mark = "[green]✓[/green]" if standard.passed else "[red]✗[/red]"
        console.print(f"  {mark} {standard.name}: {escape(standard.summary)}")
        for evidence in standard.evidence:
            note = f" — {evidence.note}" if evidence.note else ""
            console.print(f"      · {escape(evidence.text)}{escape(note)}")
    if result.facts:
        console.print("[bold]facts[/bold]")
        for fact in result.facts:
            console.print(f"  - {escape(fact.text)}")
    if result.rerun_request is not None:
        console.print(f"[bold]rerun request[/bold] (attempt {result.rerun_request.attempt})")
        for message in result.rerun_request.messages:
            console.print(f"  {escape(f'[{message.role}]')} {escape(message.content)}")


def register(
    app: typer.Typer, repository_loader: RepositoryLoader, today_loader: TodayLoader
) -> None:
    """Add `gate` to the root command; today_loader gives the default as-of date."""

    @app.command("gate")
    def gate_command(
        file: AnswerFile,
        question: Annotated[
            str | None, typer.Option("--question", help="The question the answer replies to.")
        ] = None,
        as_of: AsOf = None,
        as_json: PrintJson = False,
        jsonl: Annotated[
            bool,
            typer.Option(
                "--jsonl", help='FILE holds lines {"id", "question"?, "answer", "as_of"?}.'
            ),
        ] = False,
        strict: Annotated[
            bool, typer.Option("--strict", help="Rerun on any invented article, even above 70%.")
        ] = False,
        jobs: Jobs = 0,
    ) -> None:
        """Decide on an answer: pass, rerun (with the facts and request), pass_boundary or
        no_citations, with every quality standard."""
        from gate.assessment import assess_answer
        from gate.models import Turn
        from gate.policy import Policy

        policy = Policy(strict=strict)
        try:
            default_as_of = as_of_or_today(as_of, today_loader)
            text = read_input(file)
            repo = repository_loader()
            if jsonl:
                lines = text.splitlines()
                for line in gate_jsonl_lines(lines, repo, default_as_of, policy, jobs=jobs):
                    typer.echo(line)
                return
            result = assess_answer(
                text, repo=repo, as_of=default_as_of, turn=Turn(question=question), policy=policy
            ).result
        except InputError as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(2) from None
        if as_json:
            typer.echo(json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2))
        else:
            from rich.console import Console

            print_result(result, Console(highlight=False, soft_wrap=True))


__all__ = [
    "gate_jsonl_lines",
    "print_result",
    "register",
    "result_line",
]
