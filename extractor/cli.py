"""`lexgate extract`: print the citations of an answer (or of a JSONL file of answers)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from extractor.errors import LexiconError

if TYPE_CHECKING:
    from extractor.lexicon import Lexicon


def load_lexicon(path: Path) -> Lexicon:
    """A lexicon from a JSON file: an object name → canonical name, or a list of names."""
    from extractor.lexicon import Lexicon

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise LexiconError(f"cannot read lexicon {path}: {error}") from error
    return Lexicon.from_json(data)


def _open(source: str) -> TextIO:
    if source == "-":
        return sys.stdin
    return open(source, encoding="utf-8")  # closed by the caller


def _jsonl_records(stream: TextIO) -> Iterator[tuple[object, str]]:
    for number, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            text = record.get("answer", record.get("text"))
        except (ValueError, AttributeError) as error:
            raise typer.BadParameter(f"line {number} is not a JSON object") from error
        if not isinstance(text, str):
            raise typer.BadParameter(f'line {number} has no "answer" or "text" string')
        yield record.get("id"), text


def register(app: typer.Typer, lexicon_loader: Callable[[], Lexicon | None]) -> None:
    """Add the `extract` command to `app`; `lexicon_loader` gives the default lexicon."""

    @app.command("extract")
    def extract_command(
        source: Annotated[str, typer.Argument(help="Answer text file, or - for stdin.")],
        jsonl: Annotated[
            bool,
            typer.Option(
                "--jsonl", help='Read lines {"id", "answer"|"text"}; print one line per answer.'
            ),
        ] = False,
        lexicon_file: Annotated[
            Path | None,
            typer.Option(
                "--lexicon",
                help="JSON lexicon (object name → canonical name, or list of names); "
                "replaces the default one.",
            ),
        ] = None,
    ) -> None:
        """Print the statute citations found in an answer as JSON."""
        try:
            lexicon = load_lexicon(lexicon_file) if lexicon_file else lexicon_loader()
        except LexiconError as error:
            raise typer.BadParameter(str(error), param_hint="--lexicon") from error
        try:
            stream = _open(source)
        except OSError as error:
            raise typer.BadParameter(str(error), param_hint="SOURCE") from error
        with stream:
            try:
                _print_citations(stream, jsonl, lexicon)
            except UnicodeDecodeError as error:
                # A file that is not UTF-8 is the caller's mistake, not a crash (issue 8).
                message = f"not UTF-8 text ({error.reason} at byte {error.start})"
                raise typer.BadParameter(message, param_hint="SOURCE") from None


def _print_citations(stream: TextIO, jsonl: bool, lexicon: Lexicon | None) -> None:
    from extractor.pipeline import extract

    if not jsonl:
        citations = extract(stream.read(), lexicon)
        payload = {"citations": [c.to_json() for c in citations]}
        typer.echo(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    from extractor.jsontext import citations_line

    # Each line is written as json.dumps writes its JSON (extractor.jsontext), to the stream
    # typer.echo writes to, but flushed only when the answers come from standard input.
    out = typer.get_text_stream("stdout")
    piped = stream is sys.stdin
    try:
        for record_id, text in _jsonl_records(stream):
            out.write(f"{citations_line(record_id, extract(text, lexicon))}\n")
            if piped:
                out.flush()
    finally:
        out.flush()
