"""Calibrating the judge's threshold on labelled items (`lexgate judge calibrate FILE`).

Each item names a claim, a law, an article and the expected relation. The article text is the
one in force (from the statute database, as of the item's date or the run's), found by the
verifier exactly as for an answer citing 《law》article. The report gives the confusion matrix
and, for thresholds 0.5-0.9, how many judgements stand, how many of those are right and how
many go to review (docs/judge.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from pathlib import Path

from pydantic import ValidationError

import verifier
from gate.errors import JudgeError, JudgeInputError, JudgeUnavailableError
from gate.judge import Judge, question_for
from gate.models import (
    RELATIONS,
    CalibrationItem,
    CalibrationOutcome,
    CalibrationReport,
    Relation,
    ThresholdRow,
)
from legaldb.repository import StatuteRepository
from verifier.errors import InputError
from verifier.inputs import json_objects, read_input

THRESHOLDS: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9)


def read_items(path: Path | str) -> list[CalibrationItem]:
    """The labelled items of a JSONL file; JudgeInputError naming the line of a bad one.

    Each line: {"claim", "law", "article", "expected": supports|contradicts|says_nothing,
    optional "id" (default: the line number) and "as_of" (YYYY-MM-DD)}.
    """
    try:
        objects = list(json_objects(read_input(str(path)).splitlines(), where=f"{path}:"))
    except InputError as error:
        raise JudgeInputError(str(error)) from None
    items = []
    for number, data in objects:
        data.setdefault("id", str(number))
        data["id"] = str(data["id"])
        if isinstance(data.get("article"), int):
            data["article"] = str(data["article"])
        try:
            item = CalibrationItem.model_validate(data)
            if item.as_of is not None:
                date.fromisoformat(item.as_of)
        except (ValidationError, ValueError) as error:
            first = error.errors()[0] if isinstance(error, ValidationError) else None
            where = ".".join(str(p) for p in first["loc"]) if first else "as_of"
            reason = first["msg"] if first else "not a date (YYYY-MM-DD)"
            raise JudgeInputError(f"{path}:{number}: {where}: {reason}") from None
        items.append(item)
    if not items:
        raise JudgeInputError(f"{path}: no labelled items")
    return items


def citation_text(item: CalibrationItem) -> str:
    """The item as an answer would cite it: 《law》第…条 (a bare number becomes 第N条)."""
    article = item.article.strip()
    if article.isdigit():
        article = f"第{article}条"
    law = item.law.strip().strip("《》")
    return f"《{law}》{article}"


def judge_item(
    item: CalibrationItem, judge: Judge, repo: StatuteRepository, today: date
) -> CalibrationOutcome:
    """The item judged against the article text in force on its date; skipped (with the
    reason) when the provision cannot be found in force or the judge gives no judgement.
    JudgeUnavailableError propagates: a calibration without its model means nothing."""
    as_of = date.fromisoformat(item.as_of) if item.as_of else today
    cited = citation_text(item)
    checked = verifier.check(cited, repo, as_of)
    verdict = next(iter(checked.verdicts), None)
    if verdict is None:
        return CalibrationOutcome(item=item, skipped=f"{cited} is not a citation")
    question = question_for(verdict)
    if question is None:
        reason = f"{cited}: {verdict.reason} as of {as_of.isoformat()}"
        return CalibrationOutcome(item=item, skipped=reason)
    question = question.model_copy(update={"claim": item.claim})
    try:
        return CalibrationOutcome(item=item, judgement=judge.judge(question))
    except JudgeUnavailableError:
        raise
    except JudgeError as error:
        return CalibrationOutcome(item=item, skipped=f"judge: {error}")


def report(
    outcomes: Sequence[CalibrationOutcome], thresholds: Iterable[float] = THRESHOLDS
) -> CalibrationReport:
    """The confusion matrix and the threshold table of judged items (pure)."""
    confusion: dict[Relation, dict[Relation, int]] = {
        expected: dict.fromkeys(RELATIONS, 0) for expected in RELATIONS
    }
    judged = [(o.item.expected, o.judgement) for o in outcomes if o.judgement is not None]
    for expected, judgement in judged:
        confusion[expected][judgement.relation] += 1
    rows = []
    for threshold in thresholds:
        standing = [(e, j) for e, j in judged if j.confidence >= threshold]
        rows.append(
            ThresholdRow(
                threshold=threshold,
                stand=len(standing),
                right=sum(1 for e, j in standing if j.relation == e),
                review=len(judged) - len(standing),
            )
        )
    return CalibrationReport(
        items=len(outcomes),
        judged=len(judged),
        skipped=len(outcomes) - len(judged),
        confusion=confusion,
        thresholds=tuple(rows),
        outcomes=tuple(outcomes),
    )


def calibrate(
    items: Iterable[CalibrationItem],
    judge: Judge,
    repo: StatuteRepository,
    *,
    today: date,
    thresholds: Iterable[float] = THRESHOLDS,
) -> CalibrationReport:
    """Judge every item and report."""
    return report([judge_item(item, judge, repo, today) for item in items], thresholds)


def render_report(result: CalibrationReport) -> str:
    """The report as plain text: counts, confusion matrix, threshold table."""
    short = {"supports": "supports", "contradicts": "contradicts", "says_nothing": "says_nothing"}
    accuracy = result.accuracy
    lines = [
        f"items {result.items} · judged {result.judged} · skipped {result.skipped}"
        + (f" · accuracy {accuracy:.1%}" if accuracy is not None else ""),
        "",
        "confusion matrix (rows: expected, columns: judged)",
        f"{'':>14}" + "".join(f"{short[r]:>14}" for r in RELATIONS),
    ]
    for expected in RELATIONS:
        row = result.confusion[expected]
        lines.append(f"{short[expected]:>14}" + "".join(f"{row[r]:>14}" for r in RELATIONS))
    lines += ["", f"{'threshold':>10}{'stand':>8}{'right':>8}{'precision':>11}{'review':>8}"]
    for row_ in result.thresholds:
        precision = "-" if row_.precision is None else f"{row_.precision:.1%}"
        lines.append(
            f"{row_.threshold:>10.2f}{row_.stand:>8}{row_.right:>8}{precision:>11}{row_.review:>8}"
        )
    skipped = [o for o in result.outcomes if o.skipped]
    if skipped:
        lines += ["", "skipped:"]
        lines += [f"  {o.item.id}: {o.skipped}" for o in skipped]
    return "\n".join(lines)


__all__ = [
    "THRESHOLDS",
    "calibrate",
    "citation_text",
    "judge_item",
    "read_items",
    "render_report",
    "report",
]
