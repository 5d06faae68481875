"""The check page `/`: paste an answer (and its question), see every citation with its badge."""

from __future__ import annotations

from datetime import date
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from gate import GateResult, assess
from legaldb import StatuteRepository
from verifier import CheckResult, check, summary_line
from web.annotate import segments
from web.charts import DECISION_LABELS
from web.deps import CheckPageDep, RepoDep, TodayDep
from web.forms import read_form
from web.templating import templates

router = APIRouter(tags=["pages"], include_in_schema=False)


def _page(request: Request, status: int = 200, **context: Any) -> HTMLResponse:
    return templates.TemplateResponse(request, "index.html", context, status_code=status)


def _law_ids(repo: StatuteRepository, result: CheckResult) -> dict[str, int]:
    """Law name -> id for the cited laws that are in the database (for the article links)."""
    ids: dict[str, int] = {}
    for verdict in result.verdicts:
        name = verdict.resolved.law if verdict.resolved else verdict.facts.law
        law = repo.resolve(name) if name else None
        if name and law is not None:
            ids[name] = law.id
    return ids


def _gate(
    result: CheckResult, answer: str, question: str | None, repo: StatuteRepository
) -> GateResult:
    """The gate's decision on the checked answer, shown below it (not recorded: a preview)."""
    return assess(result, answer, question=question, repo=repo)


@router.get("/", response_class=HTMLResponse)
def check_form(request: Request, caller: CheckPageDep, today: TodayDep) -> HTMLResponse:
    """The empty form, as of today."""
    return _page(request, caller=caller, question="", answer="", as_of=today.isoformat())


@router.post("/", response_class=HTMLResponse)
async def check_page(
    request: Request, caller: CheckPageDep, repo: RepoDep, today: TodayDep
) -> HTMLResponse:
    """The answer with a badge on each citation, the summary line first."""
    form = await read_form(request)
    question = form.get("question", "").strip()
    answer = form.get("answer", "")
    as_of_text = form.get("as_of", "").strip()
    context: dict[str, Any] = {
        "caller": caller, "question": question, "answer": answer, "as_of": as_of_text,
    }  # fmt: skip
    if not answer.strip():
        return _page(request, 422, error="请粘贴要核验的回答。", error_field="answer", **context)
    try:
        as_of = date.fromisoformat(as_of_text) if as_of_text else today
    except ValueError:
        return _page(
            request, 422, error="日期格式应为 YYYY-MM-DD。", error_field="as_of", **context
        )
    result = await run_in_threadpool(check, answer, repo, as_of)
    gated = await run_in_threadpool(_gate, result, answer, question or None, repo)
    context.update(
        gate=gated,
        decision_labels=DECISION_LABELS,
        as_of=as_of.isoformat(),
        result=result,
        summary=summary_line(result.summary),
        segments=segments(answer, result),
        law_ids=_law_ids(repo, result),
    )
    return _page(request, **context)
