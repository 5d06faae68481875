"""The `lexgate` command: assembles the sub-commands that live beside their packages.

Every command's module is imported for `--help`, but the libraries behind a command
(SQLAlchemy, Lark, FastAPI) only when it runs: the packages export their verbs lazily
(textnorm.lazy) and the CLI modules import their work inside the commands.
"""

from __future__ import annotations

# First, so that the imports below come after:
# - Run as the `lexgate` command, the cyclic collector is off through the start-up (its imports
#   and the statute snapshot make objects that live as long as the process, so its collections
#   found nothing: 29 M instructions of a one-answer check). It is on again, what the start-up
#   made frozen, once `check` or `gate` has loaded its statutes (tune_collector) or any other
#   command is built (LazyCommands). Imported otherwise (tests, web workers), it is on, walking
#   the young objects every 10,000 allocations rather than 700 (legaldb.collector).
# - The dataclasses of typer and of the models the commands import get their methods from code
#   compiled once per machine (writing and parsing it was a sixth of a one-answer check).
# ruff: noqa: E402
import sys

from legaldb.collector import hold_collector, release_collector, tune_collector

if __name__ == "__main__" or str(getattr(sys.modules["__main__"], "__file__", "")).endswith(
    "/lexgate"
):
    hold_collector()
else:
    tune_collector()

from textnorm.kept import keep_generated_code

keep_generated_code()

import atexit
import copy
import inspect
import os
from collections.abc import Callable, Iterator, MutableMapping
from datetime import date
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperArgument, TyperGroup, TyperOption

from audit.cli import register as register_audit
from extractor.cli import register as register_extract
from gate.cli import register as register_gate
from gate.judge_cli import register as register_judge
from legaldb.cli import register as register_db
from verifier.cli import register as register_check
from web.cli import register as register_web

if TYPE_CHECKING:
    from extractor import Lexicon
    from legaldb import StatuteRepository
    from legaldb.prepare import Derivations
    from lexgate.llm import OpenAIJudge
    from lexgate.settings import Settings
    from lexgate.statute_settings import StatuteSettings

if TYPE_CHECKING:
    from typer._click.core import Command, Context


class PlainHelp(TyperGroup):
    """The root command group, showing parameters in `--help` the way click writes them: a
    flag alone, a value option with its kind (`--as-of TEXT`), an argument by its name in
    capitals (`FILE`, `[FILE]` when optional). Typer would label each with its Python type
    (`<bool>`, `<str>`) and put a required argument's name in braces (`{file}`)."""

    def make_context(
        self, info_name: str | None, args: list[str], parent: Context | None = None, **extra: Any
    ) -> Context:
        """Plain metavars for the whole command tree, then the usual parse."""
        _plain_parameters(self, self.context_class(self, info_name=info_name, parent=parent))
        return super().make_context(info_name, args, parent=parent, **extra)


_KINDS = {"str": "TEXT", "int": "INTEGER", "float": "NUMBER", "Path": "PATH"}


def _plain_parameters(command: Command, context: Context) -> None:
    """Give each parameter of command and its sub-commands, `--help` included, a metavar,
    and each help text its paragraphs without the docstring's line breaks."""
    for param in command.get_params(context):
        if param.metavar is not None or param.name is None:
            continue
        if isinstance(param, TyperArgument):
            name = param.name.upper()
            param.metavar = name
            usage = name if param.required else f"[{name}]"
            # Typer has no setting for these two: the instance's own methods replace them.
            setattr(param, "_usage_display_name", lambda usage=usage: usage)  # noqa: B010
            setattr(param, "display_type_rich", lambda ctx: None)  # noqa: B010
        elif isinstance(param, TyperOption):
            kind = param.bare_type()
            param.metavar = "" if param.is_flag else _KINDS.get(kind, kind.upper())
        if getattr(param, "_runtime_param", False) is None:
            # Typer builds a pydantic TypeAdapter to convert each value (pydantic's import is
            # a fifth of a one-answer check): plain values are converted here instead.
            param._runtime_param = PlainValues(param.type_descriptor)  # type: ignore[attr-defined]
    if command.help:
        # A docstring's line breaks are not the help's.
        paragraphs = inspect.cleandoc(command.help).split("\n\n")
        command.help = "\n\n".join(" ".join(p.split()) for p in paragraphs)
        # A group lists each command with its first paragraph whole (click would cut it short).
        command.short_help = command.short_help or command.help.split("\n\n")[0]
    commands = getattr(command, "commands", {})
    if not isinstance(commands, LazyCommands):  # those are made plain as they are built
        for sub in commands.values():
            _plain_parameters(sub, context)


class LazyCommands(MutableMapping[str, "Command"]):
    """The root group's sub-commands by name, each built by typer on first use (and given
    plain parameters then): typer builds a command by evaluating its parameters' annotations,
    which for all of them took a tenth of a one-answer check's start-up. Iterating gives the
    names in typer's order (commands, then groups) without building anything."""

    def __init__(self, builders: dict[str, Callable[[], Command]], root: Command) -> None:
        self._builders = builders
        self._built: dict[str, Command] = {}
        self._root = root

    def __getitem__(self, name: str) -> Command:
        found = self._built.get(name)
        if found is None:
            if name not in HELD_UNTIL_LOADED:
                release_collector()
            found = self._builders[name]()  # KeyError for an unknown name, as a dict's
            _plain_parameters(found, self._root.context_class(self._root, info_name=None))
            self._built[name] = found
        return found

    def __setitem__(self, name: str, command: Command) -> None:
        self._builders.setdefault(name, lambda: command)
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._builders[name]
        self._built.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._builders)

    def built(self) -> set[str]:
        """The names of the commands built so far."""
        return set(self._built)

    def __len__(self) -> int:
        return len(self._builders)


HELD_UNTIL_LOADED = {"check", "gate"}
"""The commands that load the statutes before anything else they do, keeping the collector
off until then (legaldb.collector.hold_collector): every other command turns it on when built."""

QUICK_EXIT = {"check"}
"""The commands after which the process ends without the interpreter's teardown (freeing the
statute index, the memos and every module: 15-20 ms after a batch check's last line): they
write nothing but standard output and error, and start no thread."""


def exit_at_once(code: object) -> None:
    """End the process with `code` as Python's own exit would, without its teardown: standard
    output and error flushed, the atexit handlers run. Returns (for Python's own exit) when
    that would differ: a code that is not an int or None, another thread alive, or standard
    output or error that cannot be flushed (Python then reports it, exit status 120)."""
    if not (code is None or type(code) is int):
        return
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() != 1:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code or 0)


class LexGate(typer.Typer):
    """The root `typer.Typer`: calling it runs the command line as typer would, with a root
    group that builds only the sub-command the command line names (`--help` builds them all);
    `typer.main.get_command(app)` still builds the whole tree at once."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """As `typer.Typer.__call__`, over `lazy_root()`; typer's own call where typer's
        internals that the lazy root uses are not there (another typer release): the same
        command line, every command built."""
        try:
            from typer.main import _typer_developer_exception_attr_name, except_hook
            from typer.models import DeveloperExceptionConfig

            root = self.lazy_root()
        except (ImportError, AttributeError, TypeError):
            release_collector()
            return super().__call__(*args, **kwargs)
        if sys.excepthook != except_hook:
            sys.excepthook = except_hook
        try:
            return root(*args, **kwargs)
        except SystemExit as done:
            commands = root.commands
            if isinstance(commands, LazyCommands) and commands.built() <= QUICK_EXIT:
                exit_at_once(done.code)
            raise
        except Exception as error:
            # What typer's own __call__ attaches, for its except_hook to show the error.
            setattr(
                error,
                _typer_developer_exception_attr_name,
                DeveloperExceptionConfig(
                    pretty_exceptions_enable=self.pretty_exceptions_enable,
                    pretty_exceptions_show_locals=self.pretty_exceptions_show_locals,
                    pretty_exceptions_short=self.pretty_exceptions_short,
                ),
            )
            raise error

    def lazy_root(self) -> PlainHelp:
        """The root group as typer builds it, its sub-commands in a LazyCommands."""
        from typer.main import (
            TyperInfo,
            get_command_from_info,
            get_command_name,
            get_group_from_info,
            solve_typer_info_defaults,
        )

        shell = copy.copy(self)  # the same settings and callback, no sub-commands
        shell.registered_commands, shell.registered_groups = [], []
        root = get_group_from_info(
            TyperInfo(shell),
            pretty_exceptions_short=self.pretty_exceptions_short,
            rich_markup_mode=self.rich_markup_mode,
            suggest_commands=self.suggest_commands,
        )
        if not isinstance(root, PlainHelp):
            raise TypeError("the root group's class must be PlainHelp")
        builders: dict[str, Callable[[], Command]] = {}
        for command_info in self.registered_commands:
            name = command_info.name or get_command_name(command_info.callback.__name__)  # type: ignore[union-attr]
            builders[name] = partial(
                get_command_from_info,
                command_info=command_info,
                pretty_exceptions_short=self.pretty_exceptions_short,
                rich_markup_mode=self.rich_markup_mode,
            )
        for group_info in self.registered_groups:
            group_name = solve_typer_info_defaults(group_info).name
            if not group_name:
                raise TypeError("every sub-group of the root must have a name")
            builders[group_name] = partial(
                get_group_from_info,
                group_info,
                pretty_exceptions_short=self.pretty_exceptions_short,
                rich_markup_mode=self.rich_markup_mode,
                suggest_commands=self.suggest_commands,
            )
        root.commands = LazyCommands(builders, root)
        return root


class PlainValues:
    """Typer's conversion of one parameter's value (`typer._coercion.RuntimeParam.coerce`)
    for the values that need no pydantic: a string for a str parameter, a bool for a bool
    one, an int or digits for an int one within its bounds; any other value (and every error) goes through typer's own
    conversion, built on first need, so results and messages are typer's."""

    def __init__(self, descriptor: Any) -> None:
        info = descriptor.parameter_info
        plain = descriptor.file_annotation is None and info.parser is None
        self._kind = descriptor.annotation if plain else None
        self._min, self._max = info.min, info.max
        self._descriptor = descriptor
        self._full: Any = None

    def coerce(self, value: Any, param: Any, ctx: Context) -> Any:
        """The parameter's value, converted as typer converts it."""
        if not (param.multiple or param.nargs == -1):
            if value is None or (self._kind in (str, bool) and type(value) is self._kind):
                return value
            if self._kind is int:
                number = _plain_int(value)
                if number is not None and self._within(number):
                    return number
        if self._full is None:
            from typer._coercion import build_runtime_param

            self._full = build_runtime_param(self._descriptor)
        return self._full.coerce(value, param=param, ctx=ctx)

    def _within(self, number: int) -> bool:
        return (self._min is None or number >= self._min) and (
            self._max is None or number <= self._max
        )


def _plain_int(value: Any) -> int | None:
    """An int given as one, or as ASCII digits (as pydantic reads them), else None."""
    if type(value) is int:
        return value
    if type(value) is str and value.isascii() and value.isdigit():
        return int(value)
    return None


app = LexGate(
    cls=PlainHelp,
    name="lexgate",
    help="LexGate: check statute citations in legal QA answers.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
register_db(app, lambda: get_settings(), lambda: _derivations())  # db init, prepare, migrate, …


def get_settings() -> Settings:
    """The process-wide settings (pydantic is imported only by a command that needs them)."""
    from lexgate.settings import get_settings as settings

    return settings()


@lru_cache(maxsize=1)
def _statute_settings() -> StatuteSettings:
    """The settings of the commands that only read the statutes (check, gate, extract):
    read without pydantic-settings (lexgate.statute_settings) unless the environment is
    ambiguous."""
    from lexgate.statute_settings import StatuteSettings, statute_settings

    found = statute_settings()
    if found is None:
        settings = get_settings()
        found = StatuteSettings(settings.database_url, settings.cache_dir, settings.timezone)
    return found


@lru_cache(maxsize=1)
def _load_repository() -> StatuteRepository:
    """The statute repository of the configured database (built by `lexgate db init`): from
    its fresh snapshot without SQLAlchemy when the database is a SQLite file, else read."""
    from legaldb import StatuteRepository, tune_collector

    settings = _statute_settings()
    repository = None
    if settings.cache_dir is not None:
        repository = StatuteRepository.open_kept(settings.database_url, settings.cache_dir)
    if repository is None:
        repository = _read_repository(settings)
    tune_collector()  # the index is kept for the process's life: out of the collector's walks
    return repository


def _read_repository(settings: StatuteSettings) -> StatuteRepository:
    """The repository read through SQLAlchemy (its snapshot written when stale), or exit 1
    with what is wrong with the database."""
    from sqlalchemy import inspect
    from sqlalchemy.exc import SQLAlchemyError

    from legaldb import StatuteRepository, make_engine
    from legaldb.engine import describe_error, normalize_url
    from legaldb.reading import is_empty

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


def _derivations() -> Derivations:
    """What `lexgate db prepare` makes beside the statutes' texts: the verifier's quote index
    of each version and the extractor's lexicon."""
    from legaldb.prepare import Derivations
    from verifier.content import keep_version_index
    from verifier.lexicon import lexicon_of

    return Derivations(per_version=(keep_version_index,), whole=(lexicon_of,))


def _load_lexicon() -> Lexicon | None:
    """The extractor's lexicon: every law name and alias of the statute database (the one
    kept for its content when it is a SQLite file, without loading the statutes)."""
    from verifier.lexicon import kept_sqlite_lexicon, lexicon_of

    settings = _statute_settings()
    if settings.cache_dir is not None:
        kept = kept_sqlite_lexicon(settings.database_url, settings.cache_dir)
        if kept is not None:
            return kept
    return lexicon_of(_load_repository())


def _today() -> date:
    """Today in the configured timezone: the default as-of date of `check` and `gate`."""
    from verifier import today

    return today(_statute_settings().timezone)


def _judge() -> OpenAIJudge:
    """The configured judge client, enabled or not (`judge calibrate` asks it anyway)."""
    from lexgate.factories import judge_client_from_settings

    return judge_client_from_settings(get_settings())


register_extract(app, _load_lexicon)
register_check(app, _load_repository, _today)
register_gate(app, _load_repository, _today)
register_web(app)  # serve, gateway, apikey
register_audit(app, get_settings)  # audit trace, export, verify
register_judge(app, _load_repository, _judge, _today)  # judge calibrate


if __name__ == "__main__":  # pragma: no cover
    app()
