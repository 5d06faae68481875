"""The optional model judge: does a correctly cited article support the claim drawn from it?

A `Judge` answers supports / contradicts / says_nothing with a probability each. `OpenAIJudge`
asks an OpenAI-compatible model a single-token multiple-choice question (A/B/C, prompt in
gate/templates/judge_*.j2) and reads the options' probabilities from the first token's
logprobs. `judge_verdicts` judges an answer's citations and `judge_failures` turns the standing
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
from typing import TYPE_CHECKING, Protocol, Self, runtime_checkable

from gate.errors import JudgeError, JudgeReplyError, JudgeUnavailableError, RegeneratorError
from gate.facts import make_fact, render
from gate.models import (
    ChatMessage,
    Fact,
    Failure,
    JudgedCitation,
    Judgement,
    JudgeQuestion,
    Relation,
    Signal,
    TokenLogprob,
)
from gate.policy import Policy
from gate.provisions import ProvisionKey, is_correctable, provision_key, provision_of
from gate.regenerator import MAX_TOP_LOGPROBS, OpenAIRegenerator
from textnorm import article_label
from verifier.models import Verdict

if TYPE_CHECKING:
    from lexgate.settings import Settings

OPTIONS: dict[str, Relation] = {"A": "supports", "B": "contradicts", "C": "says_nothing"}
"""The answer letters of the prompt (gate/templates/judge_system.j2) and what each means."""

MIN_TOP_LOGPROBS = 5
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
        ChatMessage(role="system", content=render("judge_system")),
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


class OpenAIJudge:
    """The judge on an OpenAI-compatible endpoint: one token, max_tokens=1, with logprobs."""

    def __init__(self, client: OpenAIRegenerator, *, top_logprobs: int = 10) -> None:
        if not MIN_TOP_LOGPROBS <= top_logprobs <= MAX_TOP_LOGPROBS:
            raise ValueError(
                f"top_logprobs must be {MIN_TOP_LOGPROBS}..{MAX_TOP_LOGPROBS}, not {top_logprobs}"
            )
        self.client = client
        self.top_logprobs = top_logprobs

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        """The judge of the judge_* settings (model and base URL default to the llm_* ones).

        RegeneratorConfigError when neither names a model and base URL.
        """
        configured = settings.model_copy(
            update={
                "llm_base_url": settings.judge_base_url or settings.llm_base_url,
                "llm_model": settings.judge_model or settings.llm_model,
                "llm_api_key": settings.judge_api_key or settings.llm_api_key,
            }
        )
        return cls(
            OpenAIRegenerator.from_settings(configured), top_logprobs=settings.judge_top_logprobs
        )

    def __repr__(self) -> str:
        return f"OpenAIJudge({self.client!r}, top_logprobs={self.top_logprobs})"

    def close(self) -> None:
        """Close the client's connections."""
        self.client.close()

    def judge(self, question: JudgeQuestion) -> Judgement:
        """Ask the model; the options' probabilities from the first token's top logprobs."""
        try:
            completion = self.client.complete(
                prompt(question),
                logprobs=True,
                top_logprobs=self.top_logprobs,
                max_tokens=1,
                temperature=0.0,
                context=f"judge {question.provision}",
            )
        except RegeneratorError as exc:
            raise JudgeUnavailableError(f"the judge is unavailable: {exc}") from None
        first = completion.first_token_logprobs
        if first is None:  # pragma: no cover - complete() raises MissingLogprobsError instead
            raise JudgeReplyError("the judge's reply has no logprobs")
        chosen = TokenLogprob(token=first.token, logprob=first.logprob)
        probabilities = option_probabilities((chosen, *first.top))
        return judgement_of(probabilities, model=completion.model)


def judge_from_settings(settings: Settings) -> OpenAIJudge | None:
    """The configured judge, None unless judge_enabled."""
    return OpenAIJudge.from_settings(settings) if settings.judge_enabled else None


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
) -> tuple[tuple[JudgedCitation, ...], str | None]:
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
    return tuple(judged), ("; ".join(errors) if errors else None)


def claim_detail(claim: str) -> str:
    """What tells two judged claims on one provision apart (a digest: claims may hold PII)."""
    return "claim:" + hashlib.sha256(claim.encode("utf-8")).hexdigest()[:12]


def judge_failures(
    judged: Iterable[JudgedCitation], verdicts: Sequence[Verdict], policy: Policy
) -> list[tuple[Failure, Fact | None]]:
    """The failure (and rerun fact) of each standing contradicts / says_nothing judgement."""
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
    "OpenAIJudge",
    "claim_detail",
    "judge_failures",
    "judge_from_settings",
    "judge_verdicts",
    "judgement_of",
    "option_of",
    "option_probabilities",
    "prompt",
    "question_for",
]
