"""Typed FastAPI dependencies: settings, database session, statutes, API keys and roles."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import Annotated, cast

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from legaldb import StatuteRepository
from lexgate.settings import Settings
from verifier import today
from web.apikeys import KeyCache, authenticate
from web.errors import Forbidden, LoginRequired, Unauthorized
from web.models import ANONYMOUS_CHECKER, ROLE_PERMISSIONS, ROLES, ApiKeyInfo, Permission
from web.recording import AuditTools, AuditToolsHolder, GateWriter
from web.statutes import Statutes

KEY_COOKIE = "lexgate_key"

bearer_scheme = HTTPBearer(auto_error=False, description="Authorization: Bearer <API key>")
header_scheme = APIKeyHeader(name="X-API-Key", auto_error=False, description="X-API-Key: <key>")


async def get_settings(request: Request) -> Settings:
    """The settings the app was created with."""
    settings: Settings = request.app.state.settings
    return settings


SettingsDep = Annotated[Settings, Depends(get_settings)]


async def get_engine(request: Request) -> Engine:
    """The app's engine (one pool per process)."""
    engine: Engine = request.app.state.engine
    return engine


EngineDep = Annotated[Engine, Depends(get_engine)]


def get_session(engine: EngineDep) -> Iterator[Session]:
    """A session for the request, closed after it."""
    with Session(engine) as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]


async def get_repository(request: Request) -> StatuteRepository:
    """The statute repository (loaded on first use, in a worker thread: it reads the database)."""
    statutes: Statutes = request.app.state.statutes
    if statutes.loaded:
        return statutes.get()
    return await run_in_threadpool(statutes.get)


RepoDep = Annotated[StatuteRepository, Depends(get_repository)]


async def get_audit_tools(request: Request) -> AuditTools:
    """The pseudonymizer, mapping store and round store (made on first use, in a thread)."""
    holder: AuditToolsHolder = request.app.state.audit_tools
    made = holder.made
    if made is not None:
        return made
    return await run_in_threadpool(holder.get)


AuditToolsDep = Annotated[AuditTools, Depends(get_audit_tools)]


async def get_today(settings: SettingsDep) -> date:
    """Today in the configured timezone (the default as-of date)."""
    return today(settings.timezone)


TodayDep = Annotated[date, Depends(get_today)]


@dataclass(frozen=True, slots=True)
class GateService:
    """What POST /api/v1/gate takes from the app: the statutes, the audit tools, the
    process's writer thread of gated answers (web.writer) and today. One dependency, since
    FastAPI spends tens of microseconds on each one it solves, on every request."""

    repo: StatuteRepository
    tools: AuditTools
    writer: GateWriter
    today: date


async def get_gate_service(request: Request) -> GateService:
    """RepoDep, AuditToolsDep and TodayDep in one, with the writer thread."""
    settings: Settings = request.app.state.settings
    return GateService(
        await get_repository(request),
        await get_audit_tools(request),
        request.app.state.record_writer,
        today(settings.timezone),
    )


GateServiceDep = Annotated[GateService, Depends(get_gate_service)]


def _authenticate(engine: Engine, presented: str) -> ApiKeyInfo | None:
    with Session(engine) as session:
        return authenticate(session, presented)


KEY_READ = "lexgate.key_read"
"""Set in a request's scope to (the key presented, what `verify_key` found) once it was read:
a request the direct route of POST /api/v1/gate leaves to FastAPI's route (an unknown key,
say) does not read the same key again there."""


async def verify_key(request: Request, presented: str) -> ApiKeyInfo | None:
    """The stored key matching `presented`: from the request's earlier read or the app's
    KeyCache, else one query (one for all the requests that ask meanwhile)."""
    read = request.scope.get(KEY_READ)
    if read is not None and read[0] == presented:
        return cast("ApiKeyInfo | None", read[1])
    cache: KeyCache = request.app.state.key_cache
    engine: Engine = request.app.state.engine
    info = await cache.verify(
        presented, lambda: run_in_threadpool(_authenticate, engine, presented)
    )
    request.scope[KEY_READ] = (presented, info)
    return info


async def get_api_key(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
    header_key: Annotated[str | None, Depends(header_scheme)],
) -> ApiKeyInfo:
    """The caller's key from `Authorization: Bearer` or `X-API-Key`; 401 when none is valid."""
    presented = bearer.credentials if bearer is not None else header_key
    if not presented:
        raise Unauthorized(
            "an API key is required: Authorization: Bearer <key> or X-API-Key: <key>",
            field="authorization",
        )
    info = await verify_key(request, presented)
    if info is None:
        raise Unauthorized("unknown or revoked API key", field="authorization")
    return info


ApiKeyDep = Annotated[ApiKeyInfo, Depends(get_api_key)]


def require(permission: Permission) -> Callable[[ApiKeyInfo], Awaitable[ApiKeyInfo]]:
    """A dependency: the caller's key, 403 unless its role grants `permission`."""

    async def dependency(key: ApiKeyDep) -> ApiKeyInfo:
        if not key.may(permission):
            raise Forbidden(
                f"role {key.role} may not {permission}; ask for a key with a role that may",
                field="authorization",
            )
        return key

    dependency.__name__ = f"require_{permission}"
    return dependency


CheckKeyDep = Annotated[ApiKeyInfo, Depends(require("check"))]
LawsKeyDep = Annotated[ApiKeyInfo, Depends(require("laws"))]
GateKeyDep = Annotated[ApiKeyInfo, Depends(require("gate"))]
PremiseKeyDep = Annotated[ApiKeyInfo, Depends(require("premise"))]
AuditKeyDep = Annotated[ApiKeyInfo, Depends(require("audit"))]


async def page_caller(request: Request, settings: SettingsDep) -> ApiKeyInfo:
    """Who is viewing a page: the key in the login cookie, else (public pages) a checker."""
    presented = request.cookies.get(KEY_COOKIE)
    if presented:
        info = await verify_key(request, presented)
        if info is not None:
            return info
    if settings.web_public_pages:
        return ANONYMOUS_CHECKER
    raise LoginRequired("log in with an API key to use the pages")


PageCallerDep = Annotated[ApiKeyInfo, Depends(page_caller)]


def require_page(permission: Permission) -> Callable[[ApiKeyInfo], Awaitable[ApiKeyInfo]]:
    """A page dependency: the viewer, 403 unless their role grants `permission`."""

    async def dependency(caller: PageCallerDep) -> ApiKeyInfo:
        if caller is ANONYMOUS_CHECKER and not caller.may(permission):
            raise LoginRequired("log in with an API key whose role may see this page")
        if not caller.may(permission):
            allowed = "、".join(r for r in ROLES if permission in ROLE_PERMISSIONS[r])
            raise Forbidden(
                f"角色 {caller.role} 无权访问此页面（需要 {permission} 权限）："
                f"请用以下角色的密钥登录：{allowed}"
            )
        return caller

    dependency.__name__ = f"page_requires_{permission}"
    return dependency


CheckPageDep = Annotated[ApiKeyInfo, Depends(require_page("check"))]
LawsPageDep = Annotated[ApiKeyInfo, Depends(require_page("laws"))]
AuditPageDep = Annotated[ApiKeyInfo, Depends(require_page("audit"))]
