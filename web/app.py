"""The FastAPI application: `create_app(settings)` wires routers, errors, limits and headers."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import sqlalchemy as sa
import swagger_ui_bundle
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Scope

from legaldb import make_engine
from lexgate.settings import Settings, get_settings
from verifier import today
from web import handlers
from web.apikeys import KeyCache
from web.errors import BodyTooLarge, WebError
from web.middleware import BodyLimit, SecurityHeaders
from web.recording import AuditToolsHolder, gate_writer, warm_up
from web.routes import (
    audit_api,
    audit_pages,
    check,
    docs,
    gate,
    health,
    law_pages,
    laws,
    login,
    pages,
    review,
)
from web.statutes import Statutes
from web.templating import STATIC_DIR

log = logging.getLogger("lexgate.web")

API_DESCRIPTION = """Checks the statute citations of legal QA answers against a point-in-time
statute database. Every request needs an API key (`Authorization: Bearer <key>` or
`X-API-Key: <key>`), made with `lexgate apikey create --role checker|auditor|admin`.
Errors are always `{"error": {"code", "message", "field"}}`."""

# Routers of later passes (gate, premise, audit) are added to this tuple, one file each.
ROUTERS = (health.router, check.router, laws.router, pages.router, law_pages.router,
           login.router, docs.router, review.router, gate.router,
           audit_api.router, audit_pages.router)  # fmt: skip


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Load the statutes and gate the warm-up answers (unrecorded) before the first request;
    a database that is down is not fatal."""
    statutes: Statutes = app.state.statutes
    try:
        repository = await run_in_threadpool(statutes.get)
    except (sa.exc.SQLAlchemyError, WebError) as error:
        log.warning("statutes not loaded at start-up (retried on each request): %s", error)
    else:
        settings: Settings = app.state.settings
        try:
            await run_in_threadpool(warm_up, repository, today(settings.timezone))
        except Exception:  # a request would meet the same error; the worker still serves
            log.exception("the warm-up gate failed")
    yield
    app.state.record_writer.close()
    app.state.engine.dispose()
    app.state.statute_engine.dispose()


def attach_state(app: FastAPI, settings: Settings) -> None:
    """What every request's dependencies (web.deps) read: settings, engine, statutes, the API
    key cache and the audit tools; shared by the service and the gateway app."""
    engine = make_engine(settings.database_url, echo=settings.sql_echo)
    # The statutes (index at start, article texts on demand) may come from a read replica.
    statute_engine = (
        make_engine(settings.statute_database_url, echo=settings.sql_echo)
        if settings.statute_database_url
        else engine
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.statute_engine = statute_engine
    app.state.statutes = Statutes(statute_engine, settings.cache_dir)
    app.state.key_cache = KeyCache(settings.web_key_cache_s)
    app.state.audit_tools = AuditToolsHolder(settings, engine)
    app.state.record_writer = gate_writer(engine)


def protect(
    app: FastAPI, settings: Settings, reject: Callable[[Scope, BodyTooLarge], ASGIApp]
) -> None:
    """The body limit (413 answered by `reject`) and the security headers of every response."""
    app.add_middleware(BodyLimit, max_bytes=settings.web_max_body_bytes, reject=reject)
    app.add_middleware(SecurityHeaders)


def create_app(settings: Settings) -> FastAPI:
    """A LexGate web app over the database of `settings`."""
    app = FastAPI(
        title="LexGate",
        version="1",
        description=API_DESCRIPTION,
        docs_url=None,  # served by routes/docs.py with a local Swagger UI
        redoc_url=None,
        lifespan=lifespan,
    )
    attach_state(app, settings)
    handlers.install(app)
    app.router.routes.append(gate.DirectGateRoute())  # before the routers: matched first
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/static/swagger-ui", StaticFiles(directory=swagger_ui_bundle.swagger_ui_path),
              name="swagger-ui")  # fmt: skip
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    protect(app, settings, handlers.reject_body)
    return app


def create_app_from_environment() -> FastAPI:
    """The app over `get_settings()`: what `lexgate serve` gives uvicorn in each worker."""
    return create_app(get_settings())
