"""The judge's review queue: citations judged below the confidence threshold wait for a person.

`enqueue` stores a recorded attempt's unsure judgements (claim PII-masked), `pending` lists
them oldest first, `decide` records a reviewer's relation once (confirming or overriding the
judge). The rows are part of the audit trail: the evidence pack carries them with their case
(cases.jsonl `judge_reviews`, clusters.json `judge_reviews`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from audit.errors import AlreadyDecidedError, AuditWriteError, ReviewError, ReviewNotFoundError
from audit.masking import mask_pii
from audit.models import ReviewItem
from audit.tables import CASE_TABLE, REVIEW_TABLE, from_row
from gate.models import RELATIONS, JudgedCitation


def _now(moment: datetime | None) -> datetime:
    if moment is None:
        return datetime.now(UTC)
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ReviewError(f"a review time needs a timezone: {moment!r}")
    return moment.astimezone(UTC)


def _clip(text: str, length: int) -> str:
    return text if len(text) <= length else text[: length - 1] + "…"


def _item(row: Any) -> ReviewItem:
    """The item of a review row (one column p_<relation> per probability)."""
    probabilities = {relation: row._mapping[f"p_{relation}"] for relation in RELATIONS}
    return from_row(ReviewItem, row, probabilities=probabilities)


def review_rows(
    case_id: str,
    attempt: int,
    judged: Iterable[JudgedCitation],
    *,
    as_of: date,
    now: datetime | None = None,
) -> list[dict[str, Any]]:
    """The queue rows of an attempt's judgements that do not stand (claim PII-masked)."""
    moment = _now(now)
    rows = []
    for item in judged:
        if item.stands:
            continue
        judgement = item.judgement
        question = item.question
        rows.append(
            {
                "case_id": case_id,
                "attempt": attempt,
                "span_start": item.start,
                "span_end": item.end,
                "enqueued_at": moment,
                "as_of": as_of,
                "law": _clip(question.law, 500),
                "provision": _clip(mask_pii(question.provision).text, 700),
                "claim": mask_pii(question.claim).text,
                "article_text": question.article_text,
                "p_supports": judgement.supports,
                "p_contradicts": judgement.contradicts,
                "p_says_nothing": judgement.says_nothing,
                "judge_relation": judgement.relation,
                "confidence": judgement.confidence,
                "threshold": item.threshold,
                "model": _clip(judgement.model, 200) if judgement.model else None,
            }
        )
    return rows


def enqueue(
    engine: Engine,
    case_id: str,
    attempt: int,
    judged: Iterable[JudgedCitation],
    *,
    as_of: date,
    now: datetime | None = None,
) -> list[int]:
    """Queue the judgements of a recorded attempt that do not stand; their review ids.

    `audit.record` queues a round's unsure judgements itself; this is for an attempt recorded
    without them. Queuing one citation of an attempt twice keeps the first (the ids returned
    are those of the queue). AuditWriteError if the attempt is not recorded or the database
    fails.
    """
    rows = review_rows(case_id, attempt, judged, as_of=as_of, now=now)
    ids: list[int] = []
    if not rows:
        return ids
    try:
        with engine.begin() as connection:
            for row in rows:
                key = (
                    (REVIEW_TABLE.c.case_id == case_id)
                    & (REVIEW_TABLE.c.attempt == attempt)
                    & (REVIEW_TABLE.c.span_start == row["span_start"])
                    & (REVIEW_TABLE.c.span_end == row["span_end"])
                )
                existing = connection.execute(sa.select(REVIEW_TABLE.c.id).where(key)).scalar()
                if existing is None:
                    inserted = connection.execute(
                        REVIEW_TABLE.insert().values(**row).returning(REVIEW_TABLE.c.id)
                    )
                    existing = int(inserted.scalar_one())
                ids.append(existing)
    except sa.exc.SQLAlchemyError as error:
        raise AuditWriteError(f"the review items were not queued: {error}") from error
    return ids


def pending(engine: Engine, *, limit: int = 100) -> list[ReviewItem]:
    """Items waiting for a reviewer, oldest first."""
    with engine.connect() as connection:
        rows = connection.execute(
            sa.select(REVIEW_TABLE)
            .where(REVIEW_TABLE.c.decision.is_(None))
            .order_by(REVIEW_TABLE.c.enqueued_at, REVIEW_TABLE.c.id)
            .limit(limit)
        ).all()
    return [_item(row) for row in rows]


def get(engine: Engine, review_id: int) -> ReviewItem:
    """One review item; ReviewNotFoundError if there is none."""
    with engine.connect() as connection:
        row = connection.execute(
            sa.select(REVIEW_TABLE).where(REVIEW_TABLE.c.id == review_id)
        ).one_or_none()
    if row is None:
        raise ReviewNotFoundError(f"no review item {review_id}")
    return _item(row)


def decide(
    engine: Engine,
    review_id: int,
    decision: str,
    *,
    reviewer: str,
    note: str | None = None,
    now: datetime | None = None,
) -> ReviewItem:
    """Record a reviewer's relation for an item (once): confirms the judge when it is the
    judge's relation, overrides it otherwise. The case's updated_at moves to the decision."""
    if decision not in RELATIONS:
        raise ReviewError(f"unknown decision {decision!r}: one of {', '.join(RELATIONS)}")
    if not reviewer.strip():
        raise ReviewError("a decision needs its reviewer")
    moment = _now(now)
    masked_note = mask_pii(note.strip()).text if note and note.strip() else None
    with engine.begin() as connection:
        row = connection.execute(
            sa.select(REVIEW_TABLE.c.case_id, REVIEW_TABLE.c.decision)
            .where(REVIEW_TABLE.c.id == review_id)
            .with_for_update()
        ).one_or_none()
        if row is None:
            raise ReviewNotFoundError(f"no review item {review_id}")
        if row.decision is not None:
            raise AlreadyDecidedError(f"review item {review_id} was already decided")
        connection.execute(
            REVIEW_TABLE.update()
            .where(REVIEW_TABLE.c.id == review_id, REVIEW_TABLE.c.decision.is_(None))
            .values(decision=decision, reviewer=_clip(reviewer, 80), decided_at=moment,
                    note=masked_note)
        )  # fmt: skip
        connection.execute(
            CASE_TABLE.update().where(CASE_TABLE.c.case_id == row.case_id).values(updated_at=moment)
        )
    return get(engine, review_id)


def _utc_text(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def review_json(item: ReviewItem) -> dict[str, Any]:
    """One entry of a case's judge_reviews in the evidence pack (cases.schema.json)."""
    return {
        "attempt": item.attempt,
        "provision": item.provision,
        "claim": item.claim,
        "judge": {
            **{relation: item.probabilities[relation] for relation in RELATIONS},
            "relation": item.judge_relation,
            "confidence": item.confidence,
            "threshold": item.threshold,
            "model": item.model,
        },
        "outcome": item.outcome,
        "decision": item.decision,
        "reviewer": item.reviewer,
        "decided_at": _utc_text(item.decided_at) if item.decided_at else None,
    }


def reviews_by_case(
    engine: Engine, start: datetime, end: datetime
) -> dict[str, list[dict[str, Any]]]:
    """The review entries (pack JSON) of the cases recorded in [start, end), by case id."""
    recorded_at = CASE_TABLE.c.recorded_at
    found: dict[str, list[dict[str, Any]]] = {}
    with engine.connect() as connection:
        rows = connection.execute(
            sa.select(REVIEW_TABLE)
            .join(CASE_TABLE, REVIEW_TABLE.c.case_id == CASE_TABLE.c.case_id)
            .where(recorded_at >= start, recorded_at < end)
            .order_by(REVIEW_TABLE.c.case_id, REVIEW_TABLE.c.attempt, REVIEW_TABLE.c.span_start)
        )
        for row in rows:
            found.setdefault(row.case_id, []).append(review_json(_item(row)))
    return found


__all__ = [
    "REVIEW_TABLE",
    "decide",
    "enqueue",
    "get",
    "pending",
    "review_json",
    "review_rows",
    "reviews_by_case",
]
