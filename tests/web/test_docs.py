"""The web docs keep up with the code: routes, error codes, settings and commands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer.main
from fastapi.routing import APIRoute

from lexgate.cli import app as cli
from lexgate.settings import Settings
from web import errors as web_errors
from web.app import ROUTERS
from web.handlers import HTTP_CODES

DOCS = Path(__file__).resolve().parents[2] / "docs"
API_DOC = (DOCS / "api.md").read_text(encoding="utf-8")
OPERATIONS_DOC = (DOCS / "operations.md").read_text(encoding="utf-8")
CONFIGURATION_DOC = (DOCS / "configuration.md").read_text(encoding="utf-8")

ROUTES = sorted(
    {route.path for router in ROUTERS for route in router.routes if isinstance(route, APIRoute)}
)
ERROR_CODES = sorted(
    {cls.code for cls in vars(web_errors).values()
     if isinstance(cls, type) and issubclass(cls, web_errors.WebError)}
    - {"login_required", "invalid_api_key_request"}  # a redirect; a CLI message
    | {"law_not_found", "article_not_found", "no_statutes"}
    | set(HTTP_CODES.values()) - {"bad_request", "unsupported_media_type"}
)  # fmt: skip
WEB_SETTINGS = sorted(f"LEXGATE_{n.upper()}" for n in Settings.model_fields if n.startswith("web_"))
WEB_COMMANDS = [
    "lexgate serve",
    "lexgate apikey create",
    "lexgate apikey list",
    "lexgate apikey revoke",
]


def test_the_route_walk_finds_the_api() -> None:
    """Guards the tests below: the walk sees the API and the pages."""
    assert {"/api/v1/check", "/laws/{law_id}", "/"} <= set(ROUTES)


@pytest.mark.parametrize("path", ROUTES, ids=ROUTES)
def test_route_is_documented(path: str) -> None:
    """Every route appears in docs/api.md (API paths with or without their /api/v1 prefix)."""
    short = path.removeprefix("/api/v1")
    assert f"`{path}" in API_DOC or f" {path}" in API_DOC or f" {short}" in API_DOC


@pytest.mark.parametrize("code", ERROR_CODES, ids=ERROR_CODES)
def test_error_code_is_documented(code: str) -> None:
    """Every error code the web edge answers with is in the error table of docs/api.md."""
    assert f"`{code}`" in API_DOC


@pytest.mark.parametrize("variable", WEB_SETTINGS, ids=WEB_SETTINGS)
def test_web_setting_is_documented(variable: str) -> None:
    """The web settings are in docs/configuration.md and docs/operations.md."""
    assert f"`{variable}`" in CONFIGURATION_DOC and f"`{variable}`" in OPERATIONS_DOC


@pytest.mark.parametrize("command", WEB_COMMANDS, ids=WEB_COMMANDS)
def test_web_command_exists_and_is_documented(command: str) -> None:
    """`lexgate serve` and `lexgate apikey …` are registered and documented."""
    group = typer.main.get_command(cli)
    for name in command.split()[1:]:
        group = group.commands[name]  # type: ignore[attr-defined]
    assert f"`{command}" in CONFIGURATION_DOC


def test_every_role_is_documented() -> None:
    """The roles table of docs/api.md names each role."""
    from web.models import ROLES

    for role in ROLES:
        assert re.search(rf"^\| `{role}` \|", API_DOC, re.M)
