"""The answer cut into text and citations, each citation with its badge(s), for the check page.

Pure: takes the answer and the verifier's `CheckResult`; the template renders the segments.
Every badge carries a text label and an icon besides its colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from textnorm import strip_prc_prefix
from verifier.models import CheckResult, Verdict
from verifier.serialize import SUPPORT_LABELS, SUPPORT_MARKS, badge_label
from web.labels import REASON_TEXTS

# Badge label -> CSS kind; its icon is /static/icons/<kind>.svg.
KINDS: dict[str, str] = {
    "现行有效": "verified",
    "已修改": "amended",
    "已废止": "repealed",
    "尚未生效": "pending",
    "未能核验": "unverified",
}

# Support verdict -> the sentence that explains it (its symbol: serialize.SUPPORT_MARKS).
SUPPORT_TEXTS: dict[str, str] = {
    "supports": "条文支持回答所述内容。",
    "partly": "回答所述内容可以辨认出是该条的规定，但有实质差别（数字、期限、条件等）。",
    "unsupported": "该条并未规定回答所述内容（可能是另一条的内容，或是编造的）。",
}


@dataclass(frozen=True, slots=True)
class Badge:
    """One citation's badge: label, kind (colour), icon, a short note, and the verdict."""

    index: int  # position in the result, for element ids
    label: str
    kind: str
    icon: str
    note: str
    reason_text: str
    verdict: Verdict
    support_label: str = ""  # 内容相符 / 内容部分相符 / 内容不符; "" when nothing was stated
    support_mark: str = ""
    support_text: str = ""


@dataclass(frozen=True, slots=True)
class Segment:
    """Plain answer text (no badges), or a citation's text followed by its badges."""

    text: str
    badges: tuple[Badge, ...] = ()


def _short(law: str) -> str:
    return strip_prc_prefix(law)


def successor_of(verdict: Verdict) -> str | None:
    """The first successor of a repealed article, short: 民法典第577条 (None when none)."""
    if not verdict.facts.successors:
        return None
    first = verdict.facts.successors[0]
    return f"{_short(first.law)}第{first.article}条{first.article_suffix or ''}"


def note_of(verdict: Verdict) -> str:
    """The few words after the label: repeal date and successor, effective date, counts."""
    facts = verdict.facts
    notes: list[str] = []
    if verdict.reason == "repealed":
        if facts.repealed_on:
            notes.append(f"{facts.repealed_on}废止")
        if successor := successor_of(verdict):
            notes.append(f"→ {successor}")
    elif verdict.status == "notYetEffective" and (
        facts.upcoming_effective_from or facts.effective_from
    ):
        notes.append(f"{facts.upcoming_effective_from or facts.effective_from}起施行")
    elif verdict.reason == "article_not_found" and facts.article_count:
        notes.append(f"该法共{facts.article_count}条")
    if verdict.number_conflicts:
        notes.append("数字不符")
    return " ".join(notes)


def badge_of(index: int, verdict: Verdict) -> Badge:
    """The badge of one verdict."""
    label = badge_label(verdict)
    kind = KINDS[label]
    return Badge(
        index=index,
        label=label,
        kind=kind,
        icon=f"{kind}.svg",
        note=note_of(verdict),
        reason_text=REASON_TEXTS[verdict.reason],
        verdict=verdict,
        support_label=SUPPORT_LABELS.get(verdict.support.verdict, ""),
        support_mark=SUPPORT_MARKS.get(verdict.support.verdict, ""),
        support_text=SUPPORT_TEXTS.get(verdict.support.verdict, ""),
    )


def segments(answer: str, result: CheckResult) -> list[Segment]:
    """The answer as text and citation segments; citations sharing a span share a segment."""
    ordered = sorted(
        enumerate(result.verdicts), key=lambda p: (p[1].citation.start, -p[1].citation.end)
    )
    out: list[Segment] = []
    position = 0
    for index, verdict in ordered:
        start, end = verdict.citation.start, verdict.citation.end
        badge = badge_of(index, verdict)
        if start < position and out and out[-1].badges:
            last = out[-1]
            out[-1] = Segment(last.text, (*last.badges, badge))
            continue
        start = max(start, position)
        if start > position:
            out.append(Segment(answer[position:start]))
        out.append(Segment(answer[start:end], (badge,)))
        position = max(position, end)
    if position < len(answer):
        out.append(Segment(answer[position:]))
    return out
