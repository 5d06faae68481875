"""The optional model judge: does a correctly cited article support the claim drawn from it?

A `Judge` answers supports / contradicts / says_nothing with a probability each. The HTTP one
(`lexgate.llm.OpenAIJudge`) asks an OpenAI-compatible model a single-token multiple-choice
question (A/B/C, `prompt`: gate/templates/judge_*.j2) and reads the options' probabilities from
the first token's logprobs (`option_probabilities`). `judge_verdicts` judges an answer's citations and `judge_failures` turns the standing
judgements into failures, which `gate.assess` counts: contradicts is a correctable
`claim_contradicted` failure (like a quote mismatch), says_nothing a reported, uncorrectable
`claim_unsupported`; below the threshold a judgement decides nothing and waits for a reviewer
(audit.review). Off unless a judge is passed in (docs/judge.md).
"""

from __future__ import annotations

import hashlib
import math
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from gate.errors import JudgeError, JudgeReplyError, JudgeUnavailableError
from gate.facts import fixed_text, make_fact, render
from gate.models import (
    ChatMessage,
    Fact,
    Failure,
    JudgedCitation,
    Judgement,
    Judgements,
    JudgeQuestion,
    Relation,
    Signal,
    TokenLogprob,
)
from gate.policy import Policy
from gate.provisions import ProvisionKey, is_correctable, provision_key, provision_of
from textnorm import article_label
from verifier.models import Verdict

OPTIONS: dict[str, Relation] = {"A": "supports", "B": "contradicts", "C": "says_nothing"}
"""The answer letters of the prompt (gate/templates/judge_system.j2) and what each means."""

DEFAULT_THRESHOLD = 0.8

RELATION_SIGNALS: dict[Relation, Signal] = {
    "contradicts": "claim_contradicted",
    "says_nothing": "claim_unsupported",
}
"""The failure a standing judgement adds; supports adds none (the content is confirmed)."""


@runtime_checkable
class Judge(Protocol):
    """Anything that judges how an article relates to a claim drawn from it."""

    def judge(self, question: JudgeQuestion) -> Judgement:
        """The probability of each relation; raises `JudgeError` when it has none."""
        ...


def option_of(token: str) -> str | None:
    """The option letter a token stands for (' A', 'a', 'Ａ' → 'A'), None for any other token."""
    letter = unicodedata.normalize("NFKC", token).strip().upper()
    return letter if letter in OPTIONS else None


def option_probabilities(candidates: Iterable[TokenLogprob]) -> dict[Relation, float]:
    """Softmax over the option tokens' logprobs, variants of one letter merged (their
    probabilities summed), normalised over the three options; a missing option gets 0.

    Each distinct token counts once (the chosen token usually reappears among the top ones).
    JudgeReplyError when no option is among the candidates.
    """
    seen: dict[str, float] = {}
    for candidate in candidates:
        if option_of(candidate.token) is not None and candidate.token not in seen:
            seen[candidate.token] = candidate.logprob
    finite = [logprob for logprob in seen.values() if logprob > -math.inf]
    if not finite:
        raise JudgeReplyError(
            "none of the options A/B/C is among the first token's logprobs "
            f"(tokens: {', '.join(repr(c.token) for c in candidates)[:200] or 'none'})"
        )
    top = max(finite)
    weights = dict.fromkeys(OPTIONS, 0.0)
    for token, logprob in seen.items():
        letter = option_of(token)
        if letter is not None:
            weights[letter] += math.exp(logprob - top)
    total = sum(weights.values())
    return {OPTIONS[letter]: weight / total for letter, weight in weights.items()}


def judgement_of(probabilities: dict[Relation, float], model: str | None = None) -> Judgement:
    """A Judgement from relation → probability (clamped into [0, 1] against rounding)."""
    return Judgement(
        **{relation: min(max(p, 0.0), 1.0) for relation, p in probabilities.items()},
        model=model,
    )


def prompt(question: JudgeQuestion) -> tuple[ChatMessage, ...]:
    """The judge's two messages (gate/templates/judge_system.j2, judge_user.j2)."""
    return (
        ChatMessage(role="system", content=fixed_text("judge_system")),
        ChatMessage(
            role="user",
            content=render(
                "judge_user",
                provision=question.provision,
                article_text=" ".join(question.article_text.split()),
                claim=" ".join(question.claim.split()),
            ),
        ),
    )


# --- From verdicts to judged citations, and into the gate's result -------------------------


def question_for(verdict: Verdict) -> JudgeQuestion | None:
    """The judge's question for a citation in force with its article text and a claim; None
    for every other citation (nothing to judge). A paraphrase the quote check calls a mismatch
    is judged too: the judge tells a faithful paraphrase from a reversed rule."""
    citation = verdict.citation
    resolved = verdict.resolved
    claim = citation.claim.text.strip() if citation.claim is not None else ""
    if (
        verdict.status != "verified"
        or resolved is None
        or not (resolved.article_text or "").strip()
        or not claim
    ):
        return None
    provision = provision_of(verdict)
    return JudgeQuestion(
        law=resolved.law,
        provision=provision.label,
        claim=claim,
        article_text=str(resolved.article_text),
    )


def judge_verdicts(
    verdicts: Sequence[Verdict], judge: Judge, *, threshold: float = DEFAULT_THRESHOLD
) -> Judgements:
    """Judge each distinct (provision, claim) once, at its first occurrence.

    Returns the judged citations and the judge's error, if any: a reply without the options
    skips that citation; an unavailable server stops judging (the rest stays unjudged).
    """
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"the threshold must be within 0..1, not {threshold}")
    asked: dict[tuple[ProvisionKey, str], tuple[JudgeQuestion, Verdict]] = {}
    for verdict in sorted(verdicts, key=lambda v: (v.citation.start, v.citation.end)):
        question = question_for(verdict)
        if question is not None:
            asked.setdefault((provision_key(verdict), question.claim), (question, verdict))
    judged: list[JudgedCitation] = []
    errors: list[str] = []
    for question, verdict in asked.values():
        try:
            judgement = judge.judge(question)
        except JudgeUnavailableError as exc:
            errors.append(str(exc))
            break
        except JudgeError as exc:
            errors.append(f"{question.provision}: {exc}")
            continue
        judged.append(
            JudgedCitation(
                question=question,
                judgement=judgement,
                threshold=threshold,
                stands=judgement.confidence >= threshold,
                start=verdict.citation.start,
                end=verdict.citation.end,
            )
        )
    return Judgements(tuple(judged), "; ".join(errors) if errors else None)


def claim_detail(claim: str) -> str:
    """What tells two judged claims on one provision apart (a digest: claims may hold PII)."""
    return "claim:" + hashlib.sha256(claim.encode("utf-8")).hexdigest()[:12]


def judge_failures(
    judged: Iterable[JudgedCitation], verdicts: Sequence[Verdict], policy: Policy
) -> list[tuple[Failure, Fact | None]]:
    """The failure (and rerun fact) of each standing contradicts / says_nothing judgement."""
    if not judged:
        return []
    by_span = {(v.citation.start, v.citation.end): v for v in reversed(verdicts)}
    found = []
    for item in judged:
        signal = RELATION_SIGNALS.get(item.judgement.relation)
        verdict = by_span.get((item.start, item.end))
        if not item.stands or signal is None or verdict is None:
            continue
        citation = verdict.citation
        provision = provision_of(verdict)
        failure = Failure(
            signal=signal,
            correctable=is_correctable(signal),
            provision=provision,
            surface=citation.surface,
            start=citation.start,
            end=citation.end,
            detail=claim_detail(item.question.claim),
        )
        fact = None
        # A quote mismatch's fact already gives the article text: one is enough.
        if signal == "claim_contradicted" and verdict.quote_check.verdict != "mismatch":
            fact = make_fact(
                "claim_contradicted",
                law=item.question.law,
                provision=provision.label,
                cited=article_label(provision.article, provision.article_suffix),
                article_text=item.question.article_text,
                claim=item.question.claim,
                excerpt_chars=policy.excerpt_chars,
            )
        found.append((failure, fact))
    return found


__all__ = [
    "DEFAULT_THRESHOLD",
    "OPTIONS",
    "RELATION_SIGNALS",
    "Judge",
    "claim_detail",
    "judge_failures",
    "judge_verdicts",
    "judgement_of",
    "option_of",
    "option_probabilities",
    "prompt",
    "question_for",
]
