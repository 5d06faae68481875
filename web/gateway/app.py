"""The gateway app: `create_gateway_app(settings)`, what `lexgate gateway` serves.

It shares the service's state (web.app.attach_state: database, statutes, API keys, audit
trail), so a gated completion is recorded as POST /api/v1/gate records it, and adds the
upstream client. Only /v1/* (and the health probes) are served; every error is OpenAI-shaped.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from lexgate.settings import Settings, get_settings
from web.app import attach_state, lifespan, protect
from web.gateway import handlers
from web.gateway.routes import router
from web.gateway.service import GatewayOptions
from web.gateway.upstream import Upstream
from web.routes import health


@asynccontextmanager
async def _gateway_lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The service's start-up and shutdown, and the upstream's connections closed at the end."""
    async with lifespan(app):
        yield
    await app.state.upstream.aclose()


def create_gateway_app(settings: Settings) -> FastAPI:
    """A gateway app over the database of `settings`, forwarding to its upstream."""
    app = FastAPI(
        title="LexGate gateway",
        version="1",
        description="OpenAI-compatible chat completions, each answer gated by LexGate "
        "(docs/gateway.md).",
        docs_url=None,
        redoc_url=None,
        openapi_url="/v1/openapi.json",
        lifespan=_gateway_lifespan,
    )
    attach_state(app, settings)
    app.state.gateway_options = GatewayOptions.from_settings(settings)
    app.state.upstream = Upstream(
        settings.gateway_upstream_url,
        api_key=settings.gateway_upstream_key,
        timeout_s=settings.gateway_timeout_s,
    )
    handlers.install(app)
    app.include_router(router)
    app.include_router(health.router)
    protect(app, settings, handlers.reject_body)
    return app


def create_gateway_app_from_environment() -> FastAPI:
    """The gateway over `get_settings()`: what `lexgate gateway` gives uvicorn in each worker."""
    return create_gateway_app(get_settings())
