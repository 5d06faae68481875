"""`lexgate serve` and `lexgate gateway` (uvicorn), `lexgate apikey create|list|revoke`, and
`lexgate store-key rotate` (the keys sealing the private stores kept in PostgreSQL)."""

from __future__ import annotations

import threading
import time
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

import typer

from web.errors import ApiKeyError
from web.models import ROLES

if TYPE_CHECKING:
    from rich.console import Console
    from sqlalchemy.orm import Session

READY_WAIT_S = 600
"""How long `lexgate serve` waits for the service to answer ready before it stops watching."""
WORKER_STARTUP_S = 60
"""uvicorn's worker health-check timeout: a worker answers the parent's pings only once it has
imported the `lexgate` command; on a busy machine that took over uvicorn's 5 s default, and the
parent killed and restarted its workers forever."""

apikey_app = typer.Typer(help="Create, list and revoke API keys (stored hashed).",
                         no_args_is_help=True)  # fmt: skip


def serve(
    host: Annotated[str | None, typer.Option(help="Default: LEXGATE_WEB_HOST.")] = None,
    port: Annotated[int | None, typer.Option(help="Default: LEXGATE_WEB_PORT.")] = None,
    workers: Annotated[int | None, typer.Option(help="Default: LEXGATE_WEB_WORKERS.")] = None,
) -> None:
    """Run the web service (API, pages) with uvicorn."""

    from lexgate.settings import get_settings

    settings = get_settings()
    host = host or settings.web_host
    port = port or settings.web_port
    url = _url(host, port)
    console().print(f"Starting LexGate on {url}/ (loading the statutes takes a few seconds)…")
    threading.Thread(
        target=_announce_when_ready,
        args=(url, _probe_url(host, port), settings.web_public_pages),
        name="lexgate-ready",
        daemon=True,
    ).start()
    _run("web.app:create_app_from_environment", host, port, workers or settings.web_workers)


def gateway(
    host: Annotated[str | None, typer.Option(help="Default: LEXGATE_GATEWAY_HOST.")] = None,
    port: Annotated[int | None, typer.Option(help="Default: LEXGATE_GATEWAY_PORT.")] = None,
    workers: Annotated[int | None, typer.Option(help="Default: LEXGATE_WEB_WORKERS.")] = None,
) -> None:
    """Run the OpenAI-compatible gateway: each completion of the upstream model gated."""
    from lexgate.settings import get_settings

    settings = get_settings()
    if not settings.gateway_upstream_url:
        console().print("[red]error:[/red] set LEXGATE_GATEWAY_UPSTREAM_URL (docs/gateway.md)")
        raise typer.Exit(code=2)
    host = host or settings.gateway_host
    port = port or settings.gateway_port
    console().print(f"Starting the LexGate gateway on {_url(host, port)}/v1 "
                    "(docs/gateway.md; Ctrl-C stops)…")  # fmt: skip
    _run(
        "web.gateway.app:create_gateway_app_from_environment",
        host,
        port,
        workers or settings.web_workers,
    )


def _run(factory: str, host: str, port: int, workers: int) -> None:
    """uvicorn over the app factory `factory`, as every LexGate server runs; several workers
    each listen on a socket of their own where the kernel spreads connections over them
    (`web.listeners`); uvicorn's log lines, the access lines written a batch at a time
    (`web.access_log`)."""
    import uvicorn

    from lexgate.settings import get_settings
    from web.access_log import log_config
    from web.listeners import balanced_listeners, run_workers

    settings = get_settings()
    options: dict[str, Any] = {
        "factory": True,
        "host": host,
        "port": port,
        "workers": workers,
        "proxy_headers": True,
        "forwarded_allow_ips": settings.web_forwarded_allow_ips,
        "log_level": "info",
        "log_config": log_config(),
        "timeout_keep_alive": settings.web_keep_alive_s,
        "timeout_worker_healthcheck": WORKER_STARTUP_S,
    }
    if workers > 1 and balanced_listeners():
        run_workers(uvicorn.Config(factory, **options))
    else:
        uvicorn.run(factory, **options)


def _url(host: str, port: int) -> str:
    """The server's base URL (an IPv6 address in brackets)."""
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


def _probe_url(host: str, port: int) -> str:
    """Where this machine reaches the server: a wildcard address is probed on loopback."""
    return _url("127.0.0.1" if host in ("0.0.0.0", "::", "") else host, port)


def _announce_when_ready(url: str, probe: str, public_pages: bool) -> None:
    """Once /api/v1/readyz answers 200, print one framed notice: the server is up, with the
    statutes it holds and where to look (after uvicorn's own start-up lines, not among them)."""
    import httpx
    from rich.panel import Panel

    deadline = time.monotonic() + READY_WAIT_S
    while time.monotonic() < deadline:
        try:
            reply = httpx.get(f"{probe}/api/v1/readyz", timeout=2)
            if reply.status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    else:
        return
    figures = reply.json()
    pages = "pages open without a key" if public_pages else "pages: log in at /login"
    console().print(
        Panel(
            f"[bold]LexGate is up: {url}/[/bold]\n"
            f"{figures.get('laws', 0):,} laws · {figures.get('versions', 0):,} versions · "
            f"{figures.get('articles', 0):,} articles\n"
            "check an answer: /  ·  statutes: /laws  ·  audit: /audit\n"
            f"{pages}  ·  API docs: /docs\n"
            "the data in detail: lexgate db stats  ·  Ctrl-C stops",
            expand=False,
            border_style="green",
        )
    )


@cache
def console() -> Console:
    """The terminal (rich is imported by the commands that print, not by `--help`)."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def _session() -> Session:
    from sqlalchemy.orm import Session

    from legaldb import make_engine
    from lexgate.settings import get_settings

    settings = get_settings()
    return Session(make_engine(settings.database_url, echo=settings.sql_echo))


@apikey_app.command("create")
def create(
    role: Annotated[str, typer.Option(help=f"One of: {', '.join(ROLES)}.")],
    name: Annotated[str | None, typer.Option(help="Who or what the key is for.")] = None,
) -> None:
    """Create a key and print it once (only its hash is stored)."""
    from web.apikeys import create_key

    with _session() as session:
        try:
            created = create_key(session, role, name)
        except ApiKeyError as error:
            console().print(f"[red]error:[/red] {error}")
            raise typer.Exit(code=2) from error
    console().print(f"Created API key {created.info.key_id} (role {role}). It is shown only once:",
                  style="bold")  # fmt: skip
    print(created.key)


@apikey_app.command("list")
def list_command() -> None:
    """Every key: id, role, name, created, revoked (never the secret)."""
    from web.apikeys import list_keys

    with _session() as session:
        keys = list_keys(session)
    if not keys:
        console().print("No API keys yet: `lexgate apikey create --role checker`.")
    for key in keys:
        revoked = f"revoked {key.revoked_at:%Y-%m-%d %H:%M}" if key.revoked_at else "active"
        created = f"{key.created_at:%Y-%m-%d %H:%M}" if key.created_at else "?"
        console().print(f"{key.key_id}  {key.role:<8}  {created}  {revoked}  {key.name or ''}",
                      markup=False)  # fmt: skip


@apikey_app.command("revoke")
def revoke(key_id: Annotated[str, typer.Argument(help="The key's id (lgk_<id>_…).")]) -> None:
    """Revoke a key at once (kept in the list, marked revoked)."""
    from web.apikeys import revoke_key

    with _session() as session:
        try:
            info = revoke_key(session, key_id)
        except ApiKeyError as error:
            console().print(f"[red]error:[/red] {error}")
            raise typer.Exit(code=1) from error
    console().print(f"Revoked {info.key_id} ({info.role}).")


store_key_app = typer.Typer(
    help="The keys sealing raw ids and answers kept in PostgreSQL (pseudonym mapping, open "
    "rounds).",
    no_args_is_help=True,
)


@store_key_app.command("rotate")
def rotate_store_key(
    stage: Annotated[
        bool,
        typer.Option("--stage", help="Only add a new key, accepted but not sealing yet."),
    ] = False,
    retire: Annotated[
        bool,
        typer.Option("--retire", help="Reseal what is left under old keys, then drop them."),
    ] = False,
) -> None:
    """Make a new store key the sealing one and reseal every row under it (old keys stay
    accepted until --retire). docs/operations.md gives the order for several hosts."""
    from audit.errors import SealError
    from audit.mapping_store import SEALED_IDS
    from audit.sealing import (
        KeyRing,
        keys_in_use,
        new_key,
        next_key_id,
        parse_keys,
        read_key_file,
        reseal,
        write_key_file,
    )
    from legaldb import make_engine
    from lexgate.settings import get_settings
    from web.rounds import SEALED_ROUNDS

    if stage and retire:
        console().print("[red]error:[/red] --stage and --retire are two separate steps")
        raise typer.Exit(code=2)
    settings = get_settings()
    from_setting = settings.store_key is not None
    path = settings.store_key_path
    try:
        if settings.store_key is not None:
            keys = parse_keys(settings.store_key.get_secret_value())
        else:
            keys = read_key_file(path)
        ids = [key_id for key_id, _ in keys]
        if from_setting and (stage or not retire):
            console().print(
                "The keys come from LEXGATE_STORE_KEY: put the new key first in it on every "
                "host, then this command reseals the rows under it.",
                markup=False,
            )
        elif stage:
            keys.append((next_key_id(ids), new_key()))
            write_key_file(path, keys)
            console().print(
                f"Staged key {keys[-1][0]} in {path} (accepted, not sealing yet). Copy the file "
                "to every host and restart them, then run `lexgate store-key rotate`.",
                markup=False,
            )
            return
        elif not retire:
            keys = _promoted(keys, next_key_id(ids), new_key())
            write_key_file(path, keys)
        ring = KeyRing(keys)
        engine = make_engine(settings.database_url, echo=settings.sql_echo)
        resealed = sum(reseal(engine, table, ring) for table in (SEALED_IDS, SEALED_ROUNDS))
        in_use = {k for table in (SEALED_IDS, SEALED_ROUNDS) for k in keys_in_use(engine, table)}
    except SealError as error:
        console().print(f"[red]error:[/red] {error}", markup=True)
        raise typer.Exit(code=1) from error
    console().print(f"Sealing key {ring.current}; {resealed} rows resealed under it.", markup=False)
    if not retire:
        console().print(
            "Old keys stay accepted: copy the key file to every host and restart them, then "
            "run `lexgate store-key rotate --retire`.",
            markup=False,
        )
        return
    left = sorted(in_use - {ring.current})
    if left:
        console().print(
            f"[red]error:[/red] rows are still sealed under {', '.join(left)} (a host still "
            "seals with it?); keys kept. Restart every host with the new key file and run "
            "--retire again."
        )
        raise typer.Exit(code=1)
    if from_setting:
        console().print(
            f"No row uses another key: LEXGATE_STORE_KEY can keep {ring.current} alone.",
            markup=False,
        )
        return
    write_key_file(path, keys[:1])
    dropped = ", ".join(key_id for key_id in ids if key_id != ring.current)
    console().print(f"Retired {dropped or 'no key'}; {path} holds {ring.current}.", markup=False)


def _promoted(
    keys: list[tuple[str, bytes]], fresh_id: str, fresh: bytes
) -> list[tuple[str, bytes]]:
    """The key ring with its newest staged key first (a key numbered above the sealing one),
    or with a fresh key first when none is staged; the others after it, still accepted."""
    current = keys[0][0]

    def number(key_id: str) -> int:
        return int(key_id[1:]) if key_id[1:].isdigit() else -1

    staged = [key for key in keys[1:] if number(key[0]) > number(current)]
    first = max(staged, key=lambda key: number(key[0])) if staged else (fresh_id, fresh)
    return [first, *(key for key in keys if key[0] != first[0])]


def register(app: typer.Typer) -> None:
    """Add `serve`, `gateway`, `apikey` and `store-key` to the root command."""
    app.command("serve")(serve)
    app.command("gateway")(gateway)
    app.add_typer(apikey_app, name="apikey")
    app.add_typer(store_key_app, name="store-key")
