"""The check page `/`: paste an answer (and its question), see every citation with its badge."""

from __future__ import annotations

from datetime import date
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from gate import Turn, assess_answer
from legaldb import StatuteRepository
from verifier import CheckResult, summary_line
from web.annotate import segments
from web.deps import CheckPageDep, RepoDep, TodayDep
from web.forms import form_limits, read_form
from web.labels import DECISION_LABELS, STANDARD_LABELS
from web.templating import templates

router = APIRouter(tags=["pages"], include_in_schema=False)


def _page(request: Request, status: int = 200, **context: Any) -> HTMLResponse:
    limits = form_limits(request.app.state.settings.web_max_body_bytes)
    context.update(limits=limits, standard_labels=STANDARD_LABELS)
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
    # The gate's decision is shown below the answer (not recorded: a preview).
    assessment = await run_in_threadpool(
        assess_answer, answer, repo=repo, as_of=as_of, turn=Turn(question=question or None)
    )
    result = assessment.check
    context.update(
        gate=assessment.result,
        decision_labels=DECISION_LABELS,
        as_of=as_of.isoformat(),
        result=result,
        summary=summary_line(result.summary),
        segments=segments(answer, result),
        law_ids=_law_ids(repo, result),
    )
    return _page(request, **context)
