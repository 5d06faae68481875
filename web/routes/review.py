"""The review page `/review` (reviewer role): the model judge's unsure citations, decided by a
person. A decision confirms the judge's relation or overrides it; it is recorded in the audit
trail (audit.review) and goes into the evidence pack with its case."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from audit.errors import AlreadyDecidedError, ReviewError, ReviewNotFoundError
from audit.review import decide, pending
from gate.models import RELATIONS
from web.deps import EngineDep, require_page
from web.errors import InvalidInput, NotFound
from web.forms import read_form
from web.labels import RELATION_LABELS
from web.models import ApiKeyInfo
from web.templating import templates

router = APIRouter(tags=["pages"], include_in_schema=False)

ReviewPageDep = Annotated[ApiKeyInfo, Depends(require_page("review"))]

PAGE_SIZE = 50


@router.get("/review", response_class=HTMLResponse)
def review_page(
    request: Request, caller: ReviewPageDep, engine: EngineDep, done: int | None = None
) -> HTMLResponse:
    """The pending items, oldest first, each with claim, article text and probabilities."""
    context: dict[str, Any] = {
        "caller": caller,
        "items": pending(engine, limit=PAGE_SIZE),
        "relations": RELATIONS,
        "labels": RELATION_LABELS,
        "done": done,
    }
    return templates.TemplateResponse(request, "review.html", context)


@router.post("/review/{review_id}", response_class=RedirectResponse)
async def review_decide(
    request: Request, review_id: int, caller: ReviewPageDep, engine: EngineDep
) -> RedirectResponse:
    """Record the reviewer's relation for one item (once), then back to the queue."""
    form = await read_form(request)
    decision = form.get("decision", "")
    if decision not in RELATIONS:
        raise InvalidInput("请选择 支持、矛盾 或 未作规定。", field="decision")
    reviewer = caller.key_id if caller.name is None else f"{caller.key_id} ({caller.name})"
    try:
        await run_in_threadpool(
            decide, engine, review_id, decision, reviewer=reviewer, note=form.get("note")
        )
    except ReviewNotFoundError:
        raise NotFound(f"没有编号为 {review_id} 的待复核条目。", field="review_id") from None
    except AlreadyDecidedError:
        raise InvalidInput(f"条目 {review_id} 已有复核结论。", field="review_id") from None
    except ReviewError as error:
        raise InvalidInput(str(error), field="decision") from None
    return RedirectResponse(f"/review?done={review_id}", status_code=303)
