"""The statute browser: /laws (search), a law's versions and articles, an article's history."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse

from web import browse, views
from web.deps import LawsPageDep, RepoDep, TodayDep
from web.errors import NotFound
from web.templating import templates

router = APIRouter(prefix="/laws", tags=["pages"], include_in_schema=False)


@router.get("", response_class=HTMLResponse)
def laws_page(
    request: Request,
    caller: LawsPageDep,
    repo: RepoDep,
    q: Annotated[str, Query(max_length=200)] = "",
    level: Annotated[str, Query(max_length=20)] = "",
    initial: Annotated[str, Query(pattern="^[A-Z#]?$")] = "",
) -> HTMLResponse:
    """Search by name; without a query, browse by level and by initial (pinyin)."""
    laws = views.search(repo, q, 50) if q.strip() else []
    browsing = browse.shelf(repo, level, initial)
    return templates.TemplateResponse(
        request,
        "laws.html",
        {"caller": caller, "q": q, "laws": laws, "shelf": browsing, "level": level,
         "initial": initial},
    )  # fmt: skip


@router.get("/{law_id}", response_class=HTMLResponse)
def law_page(
    request: Request,
    law_id: Annotated[int, Path(ge=1)],
    caller: LawsPageDep,
    repo: RepoDep,
    today: TodayDep,
    version: Annotated[int | None, Query(ge=1)] = None,
) -> HTMLResponse:
    """The version timeline and the articles of one version (in force today by default)."""
    detail = views.law_detail(repo, law_id, today)
    if version is None:
        shown = views.shown_version(repo, law_id, today)
    else:
        shown = repo.version(version)
        if shown is None or shown.law_id != law_id:
            raise NotFound(f"该法没有编号为 {version} 的版本", field="version")
    articles = repo.articles_text(shown.id) if shown is not None and shown.has_text else []
    contents, opening = browse.outline(articles)
    return templates.TemplateResponse(
        request,
        "law.html",
        {
            "caller": caller,
            "detail": detail,
            "shown": views.version_out(shown, today) if shown else None,
            "articles": articles,
            "contents": contents,
            "opening": opening,
            "as_of": (shown.effective_from or today).isoformat() if shown else today.isoformat(),
        },
    )


@router.get("/{law_id}/articles/{number}", response_class=HTMLResponse)
def article_page(
    request: Request,
    law_id: Annotated[int, Path(ge=1)],
    number: Annotated[int, Path(ge=1, le=100_000)],
    caller: LawsPageDep,
    repo: RepoDep,
    today: TodayDep,
    as_of: Annotated[date | None, Query()] = None,
    suffix: Annotated[str | None, Query(pattern="^之[一二三四五六七八九十]+$")] = None,
) -> HTMLResponse:
    """The article as in force on as_of, its text in each version and what changed."""
    detail = views.article_detail(repo, law_id, number, suffix, as_of or today, today)
    successor_ids = {s.law: law.id for s in detail.successors if (law := repo.resolve(s.law))}
    return templates.TemplateResponse(
        request,
        "article.html",
        {"caller": caller, "detail": detail, "successor_ids": successor_ids},
    )
