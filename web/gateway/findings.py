"""What the app is told besides the answer: the `lexgate` field and the short citation note.

Pure: built from the round (its last attempt holds the verifier's check and the judgements).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from gate.models import JudgedCitation
from verifier.models import Verdict
from verifier.serialize import SUPPORT_LABELS, badge_label
from web.annotate import note_of, successor_of
from web.gateway.models import CitationStatus, LexGateInfo, SupportJudgement
from web.recording import GateOutcome

# Badge labels in the order of the note; 现行有效 reads 已核验 there (the note counts checks).
NOTE_LABELS: dict[str, str] = {
    "现行有效": "已核验",
    "已修改": "已修改",
    "已废止": "已废止",
    "尚未生效": "尚未生效",
    "未能核验": "未能核验",
}
NO_CITATIONS = "未引用法条"


def badge_text(verdicts: Sequence[Verdict]) -> str:
    """已核验 3 条 · 已废止 1 条 → 民法典第577条: citations per badge, then the successors of
    the repealed ones."""
    if not verdicts:
        return NO_CITATIONS
    counts = Counter(badge_label(verdict) for verdict in verdicts)
    parts = [f"{shown} {counts[label]} 条" for label, shown in NOTE_LABELS.items() if counts[label]]
    successors = dict.fromkeys(
        successor
        for verdict in verdicts
        if verdict.reason == "repealed" and (successor := successor_of(verdict))
    )
    line = " · ".join(parts)
    return f"{line} → {'、'.join(successors)}" if successors else line


def citation_note(verdicts: Sequence[Verdict]) -> str:
    """The note appended to the answer text when LEXGATE_GATEWAY_CITATION_NOTE is on."""
    return f"\n\n〔引用核验：{badge_text(verdicts)}〕"


def citation_status(verdict: Verdict) -> CitationStatus:
    """One citation of the answer with its status, badge and note."""
    citation = verdict.citation
    support = verdict.support.verdict
    return CitationStatus(
        text=citation.surface,
        start=citation.start,
        end=citation.end,
        status=verdict.status,
        reason=verdict.reason,
        badge=badge_label(verdict),
        note=note_of(verdict),
        support=None if support == "unknown" else support,
        support_label=SUPPORT_LABELS.get(support),
    )


def judgement_of(judged: JudgedCitation) -> SupportJudgement:
    """The judge's judgement of one cited article."""
    return SupportJudgement(
        provision=judged.question.provision,
        claim=judged.question.claim,
        verdict=judged.judgement.relation,
        confidence=judged.judgement.confidence,
        stands=judged.stands,
    )


def delivered_verdicts(outcome: GateOutcome) -> tuple[Verdict, ...]:
    """The verifier's verdicts on the round's last answer (its attempt keeps its check)."""
    check = outcome.round.attempts[-1].check
    return check.verdicts if check is not None else ()


def lexgate_info(outcome: GateOutcome, *, judge_on: bool) -> LexGateInfo:
    """The `lexgate` field for the round's last answer (the one delivered): taken from that
    attempt's assessment (check, decision, judgements), never worked out again."""
    round_ = outcome.round
    last = round_.attempts[-1]
    verdicts = delivered_verdicts(outcome)
    return LexGateInfo(
        decision=last.decision,
        state=round_.state,
        delivery=round_.delivery,
        verifiable_rate=last.verifiable_rate,
        attempts=len(round_.attempts),
        max_attempts=round_.max_attempts,
        badge=badge_text(verdicts),
        citations=[citation_status(verdict) for verdict in verdicts],
        judgements=[judgement_of(item) for item in last.judged] if judge_on else None,
        session_id=outcome.session_id,
        case_id=outcome.case_id,
    )


__all__ = ["badge_text", "citation_note", "citation_status", "judgement_of", "lexgate_info"]
