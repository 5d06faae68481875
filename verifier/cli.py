"""`lexgate check`: verify the citations of an answer (text or JSON lines)."""

from __future__ import annotations

import codecs
import gc
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from datetime import date
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any, BinaryIO

import typer

from verifier.errors import InputError
from verifier.inputs import as_of_or_today, read_input

if TYPE_CHECKING:
    from legaldb import StatuteRepository
    from verifier.models import CheckResult

# What `check` and `gate` share: the answer argument, --as-of, --json, and how they get the
# repository and today's date (given by the root command).
AnswerFile = Annotated[str, typer.Argument(help="The answer: a file, or - for standard input.")]
AsOf = Annotated[
    str | None, typer.Option("--as-of", help="As of this date (YYYY-MM-DD; default: today).")
]
PrintJson = Annotated[bool, typer.Option("--json", help="Print JSON.")]
Jobs = Annotated[
    int,
    typer.Option(
        "--jobs",
        min=0,
        help="With --jsonl: answers worked on in N processes (0, the default: one per CPU; "
        "the output is the same, in input order).",
    ),
]
RepositoryLoader = Callable[[], "StatuteRepository"]
TodayLoader = Callable[[], date]


def check_jsonl_lines(
    lines: Sequence[str],
    repo: StatuteRepository,
    default_as_of: date,
    *,
    with_text: bool = False,
    jobs: int = 1,
) -> Iterator[str]:
    """One output line {"id", "as_of", "citations", "summary"} per input line {"id", "answer",
    "as_of"?}; without text (the default) see verifier.serialize.verdict_to_json. `jobs`: as
    verifier.batch.workers_for."""
    return _check_jsonl(lines, repo, default_as_of, with_text, jobs, None)


def check_jsonl_bytes(
    lines: Sequence[str],
    repo: StatuteRepository,
    default_as_of: date,
    *,
    with_text: bool = False,
    jobs: int = 1,
    errors: str = "strict",
) -> Iterator[bytes]:
    """check_jsonl_lines' lines, each with its newline, in UTF-8 (`errors`: as str.encode).
    Each is written as bytes by the worker that made it (verifier.serialize.result_line_utf8):
    a UTF-8 standard output is then given bytes that are neither pickled as text between the
    processes nor encoded again."""
    return _check_jsonl(lines, repo, default_as_of, with_text, jobs, errors)


def _check_jsonl(
    lines: Sequence[str],
    repo: StatuteRepository,
    default_as_of: date,
    with_text: bool,
    jobs: int,
    errors: str | None,
) -> Iterator[Any]:
    """The lines as text (errors None: verifier.serialize.result_line) or with their newlines
    in UTF-8 (result_line_utf8, with these `errors`), in input order."""
    from verifier import serialize
    from verifier.batch import cited_law, map_jsonl, workers_for
    from verifier.check import check

    write: Callable[[Any, CheckResult], Any] = (
        partial(serialize.result_line, with_text=with_text)
        if errors is None
        else partial(serialize.result_line_utf8, with_text=with_text, errors=errors)
    )

    def line(item: dict[str, Any], answer: str, as_of: date) -> Any:
        return write(item.get("id"), check(answer, repo, as_of))

    workers = workers_for(jobs, len(lines))
    # A check makes next to no cyclic garbage (35 objects over the 2,750 flzx answers), so the
    # collector's walks over what a batch keeps (memos, quote indexes, article texts) are pure
    # cost: it is off while the lines are made, in the forked workers too, and on again after,
    # what the batch kept frozen first: it lives with the repository, as the index does, and
    # the first young collection would otherwise walk all of it (0.1 s after a one-process
    # batch over flzx).
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield from map_jsonl(line, lines, default_as_of, jobs=workers, after_fork=repo.after_fork,
                             affinity=cited_law)  # fmt: skip
    finally:
        if collecting:
            gc.freeze()
            gc.enable()


def utf8_stdout() -> tuple[BinaryIO, str] | None:
    """Standard output's binary stream and its `errors`, flushed, when writing UTF-8 bytes
    there gives what writing the text would (a UTF-8 stream, "\\n" newlines); else None."""
    stream = sys.stdout
    buffer = getattr(stream, "buffer", None)
    encoding = getattr(stream, "encoding", None)
    if buffer is None or encoding is None or os.linesep != "\n":
        return None
    try:
        if codecs.lookup(encoding).name != "utf-8":
            return None
    except LookupError:
        return None
    stream.flush()
    return buffer, stream.errors or "strict"


def register(
    app: typer.Typer, repository_loader: RepositoryLoader, today_loader: TodayLoader
) -> None:
    """Add `check` to the root command; today_loader gives the default as-of date."""

    @app.command("check")
    def check_command(
        file: AnswerFile,
        as_of: AsOf = None,
        as_json: PrintJson = False,
        jsonl: Annotated[
            bool, typer.Option("--jsonl", help='FILE holds lines {"id", "answer", "as_of"?}.')
        ] = False,
        with_text: Annotated[
            bool,
            typer.Option(
                "--with-text",
                help="JSON with the texts: article, successors, quote and claim (left out by "
                "default; their spans and every other field are always there).",
            ),
        ] = False,
        jobs: Jobs = 0,
    ) -> None:
        """Verify every statute citation of an answer as of a date (default: today)."""
        from verifier.check import check

        try:
            default_as_of = as_of_or_today(as_of, today_loader)
            text = read_input(file)
            repo = repository_loader()
            if jsonl:
                lines = text.splitlines()
                binary = utf8_stdout()
                if binary is not None:
                    out, errors = binary
                    encoded = check_jsonl_bytes(lines, repo, default_as_of, with_text=with_text,
                                                jobs=jobs, errors=errors)  # fmt: skip
                    out.writelines(encoded)
                    return
                given = check_jsonl_lines(
                    lines, repo, default_as_of, with_text=with_text, jobs=jobs
                )
                sys.stdout.writelines(f"{line}\n" for line in given)
                return
            result = check(text, repo, default_as_of)
        except InputError as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(2) from None
        if as_json:
            from verifier.serialize import result_to_json

            data = result_to_json(result, with_text=with_text)
            typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        else:
            from rich.console import Console

            from verifier.render import render_answer

            Console(highlight=False, soft_wrap=True).print(render_answer(text, result))
