"""The `lexgate` command: assembles the sub-commands that live beside their packages.

Every command's module is imported for `--help`, but the libraries behind a command
(SQLAlchemy, Lark, FastAPI) only when it runs: the packages export their verbs lazily
(textnorm.lazy) and the CLI modules import their work inside the commands.
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache
from typing import TYPE_CHECKING

import typer

from audit.cli import register as register_audit
from extractor.cli import register as register_extract
from gate.cli import register as register_gate
from gate.judge_cli import register as register_judge
from legaldb.cli import app as db_app
from verifier.cli import register as register_check
from web.cli import register as register_web

if TYPE_CHECKING:
    from extractor import Lexicon
    from legaldb import StatuteRepository
    from lexgate.settings import Settings

app = typer.Typer(
    name="lexgate",
    help="LexGate: check statute citations in legal QA answers.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(db_app, name="db")


def get_settings() -> Settings:
    """The process-wide settings (pydantic is imported only by a command that needs them)."""
    from lexgate.settings import get_settings as settings

    return settings()


@lru_cache(maxsize=1)
def _load_repository() -> StatuteRepository:
    """The statute repository of the configured database (built by `lexgate db init`)."""
    from sqlalchemy import inspect
    from sqlalchemy.exc import SQLAlchemyError

    from legaldb import StatuteRepository, make_engine
    from legaldb.engine import describe_error, normalize_url
    from legaldb.repository import is_empty

    settings = get_settings()
    shown = normalize_url(settings.database_url).render_as_string(hide_password=True)
    engine = make_engine(settings.database_url)
    try:
        if not inspect(engine).has_table("law") or is_empty(engine):
            typer.echo(
                f"error: the statute database {shown} holds no statutes yet: "
                "run `lexgate db init` first (LEXGATE_HOME, LEXGATE_DATABASE_URL choose it).",
                err=True,
            )
            raise typer.Exit(1)
        return StatuteRepository.load(engine, settings.cache_dir)
    except SQLAlchemyError as error:
        typer.echo(
            f"error: the statute database {shown} cannot be read: {describe_error(error)}",
            err=True,
        )
        raise typer.Exit(1) from None


def _load_lexicon() -> Lexicon | None:
    """The extractor's lexicon: every law name and alias of the statute database."""
    from verifier import lexicon_of

    return lexicon_of(_load_repository())


def _today() -> date:
    """Today in the configured timezone: the default as-of date of `lexgate gate`."""
    from verifier import today

    return today(get_settings().timezone)


register_extract(app, _load_lexicon)
register_check(app, _load_repository)
register_gate(app, _load_repository, _today)
register_web(app)  # serve, apikey
register_audit(app, get_settings)  # audit trace, export, verify
register_judge(app, _load_repository, get_settings, _today)  # judge calibrate


if __name__ == "__main__":  # pragma: no cover
    app()
