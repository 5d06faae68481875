"""How a browser authenticates: an API key typed once into /login, kept in a cookie.

The cookie holds the key itself (HttpOnly, SameSite=Strict, Secure over HTTPS); each page
request checks it like an API request. /logout forgets it. docs/api.md explains the choice.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from web.apikeys import authenticate
from web.deps import KEY_COOKIE, SessionDep, SettingsDep
from web.forms import read_form
from web.templating import templates

router = APIRouter(tags=["pages"], include_in_schema=False)


def safe_next(target: str | None) -> str:
    """A same-site path to go back to (never another host: no open redirect)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, settings: SettingsDep, next: str = "/") -> HTMLResponse:
    """The key form."""
    return templates.TemplateResponse(
        request,
        "login.html",
        {"next": safe_next(next), "public": settings.web_public_pages, "caller": None},
    )


@router.post("/login", response_model=None)
async def login(
    request: Request, session: SessionDep, settings: SettingsDep
) -> HTMLResponse | RedirectResponse:
    """Check the key; on success keep it in the cookie and go back."""
    form = await read_form(request)
    target = safe_next(form.get("next"))
    key = form.get("key", "").strip()
    info = authenticate(session, key) if key else None
    if info is None:
        return templates.TemplateResponse(
            request,
            "login.html",
            {"next": target, "public": settings.web_public_pages, "caller": None,
             "error": "密钥无效或已被撤销。"},
            status_code=401,
        )  # fmt: skip
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(
        KEY_COOKIE,
        key,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )
    return response


@router.post("/logout")
def logout() -> RedirectResponse:
    """Forget the key."""
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(KEY_COOKIE, path="/")
    return response
