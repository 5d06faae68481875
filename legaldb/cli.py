"""`lexgate db …`: build, migrate and inspect the statute database."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import typer

from legaldb.errors import LegalDBError

if TYPE_CHECKING:
    from rich.console import Console
    from sqlalchemy.engine import Engine

    from legaldb.models import CorpusRead, ImportReport
    from legaldb.prepare import Derivations

app = typer.Typer(help="Build, migrate and inspect the statute database.", no_args_is_help=True)
migrate_app = typer.Typer(help="Move the schema between Alembic revisions.", no_args_is_help=True)
app.add_typer(migrate_app, name="migrate")


@cache
def console() -> Console:
    """The terminal (rich is imported by the commands that print, not by `--help`)."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


class DatabaseSettings(Protocol):
    """What the db commands read of the deployment's settings (given by the CLI's edge)."""

    @property
    def database_url(self) -> str: ...

    @property
    def sql_echo(self) -> bool: ...

    @property
    def cache_dir(self) -> Path | None: ...


_settings_loader: Callable[[], DatabaseSettings] | None = None
_derivations: Callable[[], Derivations] | None = None


def register(
    root: typer.Typer,
    settings_loader: Callable[[], DatabaseSettings],
    derivations: Callable[[], Derivations] | None = None,
) -> None:
    """Add `db …` to the root command; settings_loader gives the database URL, SQL echo and
    cache directory, derivations what the packages above keep per version (`db prepare`)."""
    global _settings_loader, _derivations
    _settings_loader = settings_loader
    _derivations = derivations
    root.add_typer(app, name="db")


def _settings() -> DatabaseSettings:
    if _settings_loader is None:
        raise RuntimeError("legaldb.cli.register() was not called")
    return _settings_loader()


def _database_url() -> str:
    return _settings().database_url


def _shown(url: str) -> str:
    from legaldb.engine import normalize_url

    return normalize_url(url).render_as_string(hide_password=True)


@contextmanager
def _errors_as_exit() -> Iterator[None]:
    try:
        yield
    except LegalDBError as exc:
        console().print(f"[red]error:[/red] {exc}")
        raise typer.Exit(code=1) from exc


def _engine(url: str) -> Engine:
    from legaldb.engine import make_engine

    return make_engine(url, echo=_settings().sql_echo)


@contextmanager
def _progress() -> Iterator[Callable[[str, int, int], None]]:
    """A rich progress bar with one task per stage (reading files, writing articles)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console(), transient=False) as progress:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(stage, total=total)
            progress.update(tasks[stage], completed=done, total=total)

        yield update


def _read_and_import(engine: Engine, source: Path | None) -> ImportReport:
    """Read a lawrefbook tree (None: the bundled archive) with the bundled history and flk
    capture, and import it with the repealed laws."""
    from legaldb.corpus import BUNDLED_ARCHIVE, read_statutes
    from legaldb.importer import import_corpus
    from legaldb.repealed import read_repealed

    path = BUNDLED_ARCHIVE if source is None else source
    started = time.perf_counter()
    repealed = read_repealed()
    with _progress() as update:
        corpus: CorpusRead = read_statutes(
            path, lambda d, t: update("reading files", d, t), repealed=repealed
        )
        read_seconds = time.perf_counter() - started
        report = import_corpus(engine, corpus, repealed=repealed, progress=update)
    counts = report.counts
    console().print(
        f"Imported {path}: {counts.get('laws', 0)} laws, {counts.get('versions', 0)} versions, "
        f"{counts.get('articles', 0)} articles, {counts.get('aligned', 0)} aligned "
        f"correspondences; read {read_seconds:.1f} s, wrote {report.seconds:.1f} s, "
        f"total {time.perf_counter() - started:.1f} s."
    )
    if report.skipped or report.undated:
        console().print(
            f"Skipped {len(report.skipped)} files or texts; {len(report.undated)} versions"
            " without an effective date (`lexgate db stats --details` lists both, with why)."
        )
    return report


PREPARE_OPTION = typer.Option(
    True,
    "--prepare/--no-prepare",
    help="Then make every version's derived files (`lexgate db prepare`).",
)
JOBS_OPTION = typer.Option(
    0, "--jobs", min=0, help="Worker processes making the derived files (0: one per CPU)."
)


@app.command()
def init(prepare: bool = PREPARE_OPTION) -> None:
    """Migrate to the newest schema; import the bundled statutes if the database is empty;
    then make the files derived from them (`db prepare`)."""
    from legaldb.migrate import current_revision, upgrade
    from legaldb.reading import bundled_import_outdated, is_empty

    url = _database_url()
    with _errors_as_exit():
        before = current_revision(url)
        upgrade(url)
        after = current_revision(url)
        where = _shown(url)
        if before == after:
            console().print(f"{where}: schema already at revision {after}.")
        else:
            console().print(f"{where}: schema migrated from {before or 'empty'} to {after}.")
        engine = _engine(url)
        try:
            if is_empty(engine):
                console().print("The database holds no statutes: importing the bundled corpus.")
                _read_and_import(engine, None)
            elif bundled_import_outdated(engine):
                console().print("The bundled statute data changed: importing it again.")
                _read_and_import(engine, None)
            else:
                console().print("Statutes already imported: nothing to import.")
            if prepare:
                _prepare(engine, jobs=0)
        finally:
            engine.dispose()


@app.command("import-lawrefbook")
def import_lawrefbook(
    path: Path = typer.Argument(
        ...,
        exists=True,
        file_okay=True,
        dir_okay=True,
        help="A lawrefbook tree (DLC/ included) or a .tar.xz of one.",
    ),
    prepare: bool = PREPARE_OPTION,
) -> None:
    """Import a lawrefbook-format tree, replacing the earlier lawrefbook import; then make the
    files derived from the statutes (`db prepare`)."""
    from legaldb.migrate import upgrade

    url = _database_url()
    with _errors_as_exit():
        upgrade(url)
        engine = _engine(url)
        try:
            _read_and_import(engine, path)
            if prepare:
                _prepare(engine, jobs=0)
        finally:
            engine.dispose()


@app.command("prepare")
def prepare_command(jobs: int = JOBS_OPTION) -> None:
    """Make the statute snapshot and every version's derived files (article texts, quote
    indexes) in the cache directory, for a host that joins an existing database; files
    already made are kept (a second run makes nothing)."""
    from legaldb.migrate import current_revision
    from legaldb.reading import is_empty

    url = _database_url()
    with _errors_as_exit():
        engine = _engine(url)
        try:
            if current_revision(url) is None or is_empty(engine):
                console().print(f"{_shown(url)} holds no statutes: run `lexgate db init` first.")
                raise typer.Exit(code=1)
            _prepare(engine, jobs)
        finally:
            engine.dispose()


def _prepare(engine: Engine, jobs: int) -> None:
    """Load the repository (writing its snapshot) and make its derived files, with progress."""
    from legaldb.collector import tune_collector
    from legaldb.prepare import Derivations, prepare
    from legaldb.repository import StatuteRepository
    from legaldb.snapshot import kept_derived_dir

    cache_dir = _settings().cache_dir
    if cache_dir is None:
        console().print("No cache directory (LEXGATE_CACHE_DIR is empty): nothing to prepare.")
        return
    earlier = kept_derived_dir(cache_dir, engine.url.render_as_string(hide_password=True))
    repository = StatuteRepository.load(engine, cache_dir)
    tune_collector()  # the index is kept, and shared with the forked workers
    derivations = _derivations() if _derivations is not None else Derivations()
    with _progress() as update:
        done = prepare(repository, derivations, jobs, lambda d, t: update("derived files", d, t))
    console().print(
        f"Prepared {done.versions} versions' derived files in {done.directory}: "
        f"{done.made} made, {done.size_bytes / 1e6:.0f} MB, {done.seconds:.1f} s "
        f"({done.workers} workers)."
    )
    if earlier is not None and earlier != done.directory and earlier.is_dir():
        # Derived from what this database held before its latest import: no process of this
        # database reads it again (one still running the old statutes makes what it needs).
        shutil.rmtree(earlier, ignore_errors=True)
        console().print(f"Removed {earlier} (derived from this database's earlier statutes).")


@app.command()
def stats(
    as_json: bool = typer.Option(False, "--json", help="Print the statistics as JSON."),
    details: bool = typer.Option(
        False, "--details", help="List every repeal, skipped file and undated version."
    ),
) -> None:
    """Laws, versions and articles by level, repeals, undated versions and why, the manifest."""
    url = _database_url()
    data = _stats_of(url)
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    _print_stats(url, data, details)


def _stats_of(url: str) -> dict[str, Any]:
    """`database_stats` of the database at url; exit 1 when it has no schema yet."""
    from legaldb.migrate import current_revision
    from legaldb.reading import database_stats

    with _errors_as_exit():
        if current_revision(url) is None:
            console().print(f"{_shown(url)}: no schema yet; run `lexgate db init`.")
            raise typer.Exit(code=1)
        engine = _engine(url)
        try:
            return database_stats(engine)
        finally:
            engine.dispose()


SHORT_LIST = 10  # lines of each list `db stats` shows without --details


def _print_list(lines: list[str], details: bool, indent: str = "    ") -> None:
    shown = lines if details else lines[:SHORT_LIST]
    for line in shown:
        console().print(f"{indent}{line}", markup=False)
    if len(lines) > len(shown):
        console().print(f"{indent}… and {len(lines) - len(shown)} more (--details)", markup=False)


def _print_stats(url: str, data: dict[str, Any], details: bool = False) -> None:
    from rich.table import Table

    console().print(f"Statute database {_shown(url)}")
    table = Table("level", "laws", "versions", "articles")
    for level, row in data["by_level"].items():
        table.add_row(level, str(row["laws"]), str(row["versions"]), str(row["articles"]))
    totals = data["totals"]
    table.add_section()
    table.add_row("total", str(totals["laws"]), str(totals["versions"]), str(totals["articles"]))
    console().print(table)
    console().print(f"Deleted articles kept and marked: {totals['deleted_articles']}")
    by_source: dict[str, int] = {}
    for item in data["repealed"]:
        by_source[item["source"] or "?"] = by_source.get(item["source"] or "?", 0) + 1
    sources = ", ".join(f"{n} from {source}" for source, n in sorted(by_source.items()))
    console().print(f"Repealed laws: {totals['repealed_laws']} ({sources})")
    if details:
        _print_list(
            [
                f"{item['law']}: repealed {item['repealed_on'] or 'on an unknown date'}"
                f" by {item['repealed_by'] or item['note']} (successor: {item['successor'] or 'none'})"
                for item in data["repealed"]
            ],
            details,
            "  ",
        )
    for dataset in data["datasets"]:
        console().print(
            f"Dataset {dataset['dataset']}: {dataset['source']} (snapshot {dataset['snapshot']}),"
            f" imported {dataset['imported_at']}",
            markup=False,
        )
        if dataset["complete_levels"]:
            levels = "、".join(dataset["complete_levels"])
            console().print(f"  claims to cover completely: {levels}")
        console().print(f"  skipped: {len(dataset['skipped'])}")
        if details:
            _print_list([f"{i['path']}: {i['reason']}" for i in dataset["skipped"]], details)
        console().print(f"  versions without an effective date: {len(dataset['undated'])}")
        _print_list(list(dataset["undated"]), details)
        if dataset.get("differences"):
            console().print(
                f"  versions held by two sources with differing articles: "
                f"{len(dataset['differences'])} (`lexgate db sources`)"
            )


@app.command()
def sources(
    law: str = typer.Argument("", help="Only versions of laws whose name contains this."),
) -> None:
    """The same version from two sources compared article by article: every difference."""
    data = _stats_of(_database_url())
    lines = [
        line
        for dataset in data["datasets"]
        for line in dataset.get("differences") or ()
        if law in line.split(" (", 1)[0]
    ]
    console().print(
        f"{len(lines)} versions held by lawrefbook and flk differ article by article "
        "(the lawrefbook text is kept; docs/data.md):"
    )
    for line in lines:
        console().print(f"  {line}", markup=False)


@migrate_app.command("upgrade")
def migrate_upgrade(
    revision: str = typer.Argument("head", help="Target revision."),
) -> None:
    """Migrate the schema up to a revision (default: head)."""
    from legaldb.migrate import current_revision, upgrade

    url = _database_url()
    with _errors_as_exit():
        upgrade(url, revision)
        console().print(f"{_shown(url)}: at revision {current_revision(url)}.")


@migrate_app.command("downgrade")
def migrate_downgrade(
    revision: str = typer.Argument(..., help="Target revision; 'base' drops every table."),
) -> None:
    """Migrate the schema down to a revision ('base' removes the statute tables)."""
    from legaldb.migrate import current_revision, downgrade

    url = _database_url()
    with _errors_as_exit():
        downgrade(url, revision)
        console().print(f"{_shown(url)}: at revision {current_revision(url) or 'base'}.")
