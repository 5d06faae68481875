"""The answer with a coloured badge after every citation, for the terminal (rich markup)."""

from __future__ import annotations

from rich.text import Text

from verifier.models import CheckResult, Verdict
from verifier.serialize import SUPPORT_LABELS, SUPPORT_MARKS, badge_label, summary_line

# Colour and icon per badge: the label and the icon carry the meaning, colour only helps.
STYLES: dict[str, tuple[str, str]] = {
    "现行有效": ("bold green", "✓"),
    "已修改": ("bold yellow", "△"),
    "已废止": ("bold red", "✗"),
    "尚未生效": ("bold blue", "◷"),
    "未能核验": ("bold bright_black", "?"),
}


SUPPORT_STYLES: dict[str, str] = {
    "supports": "green",
    "partly": "bold yellow",
    "unsupported": "bold red",
}


def _badge(verdict: Verdict) -> Text:
    label = badge_label(verdict)
    style, icon = STYLES[label]
    extra = ""
    if verdict.reason == "repealed" and verdict.facts.repealed_on:
        extra = f" {verdict.facts.repealed_on}"
        if verdict.facts.successors:
            first = verdict.facts.successors[0]
            extra += f" → {first.law.removeprefix('中华人民共和国')}{first.label}"
    elif verdict.reason == "article_not_found" and verdict.facts.article_count:
        extra = f" 共{verdict.facts.article_count}条"
    elif verdict.status == "notYetEffective" and verdict.facts.effective_from:
        extra = f" {verdict.facts.effective_from}起施行"
    if verdict.number_conflicts:
        extra += " 数字不符"
    badge = Text(f"[{icon} {label}{extra}]", style=style)
    support = SUPPORT_LABELS.get(verdict.support.verdict)
    if support is not None:  # the content is judged apart from the status: its own mark
        mark = SUPPORT_MARKS[verdict.support.verdict]
        badge.append(f"[{mark} {support}]", style=SUPPORT_STYLES[verdict.support.verdict])
    return badge


def render_answer(text: str, result: CheckResult) -> Text:
    """The answer text with a badge right after each citation's span, then the summary line."""
    out = Text()
    position = 0
    # One badge per span: list members written in one span share it (the last verdict wins
    # only when all agree; otherwise each member's badge is shown in order).
    for verdict in sorted(result.verdicts, key=lambda v: (v.citation.end, v.citation.start)):
        end = verdict.citation.end
        if end < position:
            out.append_text(_badge(verdict))
            continue
        out.append(text[position:end])
        out.append_text(_badge(verdict))
        position = end
    out.append(text[position:])
    out.append("\n\n")
    out.append(summary_line(result.summary), style="bold")
    return out
