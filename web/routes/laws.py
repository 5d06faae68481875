"""GET /api/v1/laws?q=, /laws/{id} (versions with dates), /laws/{id}/articles/{n}?as_of=."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from fastapi import APIRouter, Path, Query

from web import views
from web.deps import LawsKeyDep, RepoDep, TodayDep
from web.schemas import (
    ERROR_RESPONSES,
    NOT_FOUND_RESPONSE,
    ArticleDetail,
    LawDetail,
    LawSearchResponse,
)

router = APIRouter(prefix="/api/v1/laws", tags=["laws"])

LawId = Annotated[int, Path(ge=1, description="The law's id (from a search).")]


@router.get("", response_model=LawSearchResponse, responses=ERROR_RESPONSES)
def search_laws(
    _key: LawsKeyDep,
    repo: RepoDep,
    q: Annotated[str, Query(min_length=1, max_length=200, description="Name or part of it.")],
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> LawSearchResponse:
    """Laws whose names or aliases contain q (exact first), else the closest names."""
    return LawSearchResponse(query=q, laws=views.search(repo, q, limit))


@router.get(
    "/{law_id}", response_model=LawDetail, responses={**ERROR_RESPONSES, **NOT_FOUND_RESPONSE}
)
def get_law(law_id: LawId, _key: LawsKeyDep, repo: RepoDep, today: TodayDep) -> LawDetail:
    """A law with its versions (promulgated, effective from, effective to) and its repeal."""
    return views.law_detail(repo, law_id, today)


@router.get(
    "/{law_id}/articles/{number}",
    response_model=ArticleDetail,
    responses={**ERROR_RESPONSES, **NOT_FOUND_RESPONSE},
)
def get_article(
    law_id: LawId,
    number: Annotated[int, Path(ge=1, le=100_000, description="The article number (Arabic).")],
    _key: LawsKeyDep,
    repo: RepoDep,
    today: TodayDep,
    as_of: Annotated[date | None, Query(description="YYYY-MM-DD; default today.")] = None,
    suffix: Annotated[
        str | None, Query(pattern="^之[一二三四五六七八九十]+$", description="之一, 之二 …")
    ] = None,
) -> ArticleDetail:
    """The article as in force on as_of, with its text in every version and what changed."""
    return views.article_detail(repo, law_id, number, suffix, as_of or today, today)
