"""Pydantic schemas of the HTTP API (requests and responses); never ORM models.

The check response mirrors `verifier.result_to_json` (the CLI's JSON) field for field; a test
validates real responses against these models with extra fields forbidden, so they cannot drift.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Schema(BaseModel):
    """Base: unknown fields are an error (requests: 422; responses: caught by the tests)."""

    model_config = ConfigDict(extra="forbid")


# --- errors ---------------------------------------------------------------------------------


class ErrorBody(Schema):
    code: str = Field(description="Stable machine-readable code, e.g. invalid_input.")
    message: str = Field(description="What is wrong, for a person.")
    field: str | None = Field(description="The request field at fault (answer, as_of, q …).")


class ErrorResponse(Schema):
    """Every error of the API has this shape."""

    error: ErrorBody


ERROR_RESPONSES: dict[int | str, dict[str, object]] = {
    status: {"model": ErrorResponse, "description": description}
    for status, description in (
        (401, "No API key, or an unknown or revoked one."),
        (403, "The key's role does not allow this."),
        (413, "The request body is over the limit (LEXGATE_WEB_MAX_BODY_BYTES)."),
        (422, "A field is invalid; `field` names it."),
        (503, "The database is unreachable or holds no statutes."),
    )
}
NOT_FOUND_RESPONSE: dict[int | str, dict[str, object]] = {
    404: {"model": ErrorResponse, "description": "No such law, or no such article in it."}
}


# --- POST /check ----------------------------------------------------------------------------


class CheckRequest(Schema):
    answer: str = Field(min_length=1, description="The answer whose citations are checked.")
    as_of: date | None = Field(
        default=None, description="Check as of this day (YYYY-MM-DD); default: today."
    )
    with_text: bool = Field(
        default=False,
        description="Include the texts: the article's (resolved.article_text), the successors', "
        "the quote's and the claim's. Left out by default (their spans stay); `lexgate check "
        "--with-text` likewise.",
    )


class SpanOut(Schema):
    text: str | None = Field(default=None, description="Only with with_text.")
    start: int
    end: int


class ArticleRefOut(Schema):
    law: str
    article: int
    article_suffix: str | None = None
    label: str
    version_label: str | None = None
    text: str | None = None
    kind: str | None = None
    similarity: float | None = None
    changed: bool = False
    note: str | None = None


class FactsOut(Schema):
    """Only the facts that apply are present."""

    law: str | None = None
    level: str | None = None
    level_covered: bool | None = None
    article_count: int | None = None
    version_label: str | None = None
    effective_from: str | None = None
    effective_to: str | None = None
    repealed_on: str | None = None
    repealed_by: str | None = None
    repeal_note: str | None = None
    successor_law: str | None = None
    successors: list[ArticleRefOut] = []
    corresponding: ArticleRefOut | None = None
    recited_version: str | None = None
    recited_article: str | None = None
    upcoming_version: str | None = None
    upcoming_effective_from: str | None = None
    paragraph_count: int | None = None
    item_count: int | None = None


class ResolvedOut(Schema):
    law: str
    version_label: str | None
    effective_from: str | None
    effective_to: str | None
    article_label: str | None
    article_text: str | None = Field(default=None, description="Only with with_text.")


class FoundInOut(Schema):
    law: str
    article_label: str
    version_label: str | None
    score: float
    where: Literal["same_law", "other_version", "elsewhere"]


class QuoteCheckOut(Schema):
    verdict: Literal["match", "partial", "mismatch", "none"]
    score: float | None
    found_in: list[FoundInOut]


class NumberConflictOut(Schema):
    kind: str
    claim_value: float
    article_values: list[float]
    claim_surface: str
    article_surfaces: list[str]


class DifferenceOut(Schema):
    kind: Literal["number", "condition"]
    stated: str
    article: str


class SupportOut(Schema):
    verdict: Literal["supports", "partly", "unsupported", "unknown"]
    evidence: str | None = None
    score: float | None = None
    coverage: float | None = None
    best_other: float | None = None
    differences: list[DifferenceOut] = []
    found_in: list[FoundInOut] = []


class CitationOut(Schema):
    surface: str
    start: int
    end: int
    law_as_written: str | None
    law: str | None
    implicit: bool
    article: int
    article_suffix: str | None
    paragraph: int | None
    item: int | None
    quote: SpanOut | None
    range: bool
    version_hint: str | None
    claim: SpanOut | None
    status: Literal["verified", "deprecated", "notYetEffective", "unverified"]
    reason: str
    badge: Literal["现行有效", "已修改", "已废止", "尚未生效", "未能核验"]
    facts: FactsOut
    resolved: ResolvedOut | None
    quote_check: QuoteCheckOut
    number_conflicts: list[NumberConflictOut]
    support: SupportOut


class SummaryOut(Schema):
    total: int
    verified: int
    deprecated: int
    notYetEffective: int  # the status name, as in the CLI's JSON
    unverified: int
    line: str = Field(description="已校对 6 条 · 现行有效 5 · 已废止 1 · 尚未生效 0 · 未能核验 0")


class CheckResponse(Schema):
    """The CLI's `lexgate check --json` output for one answer."""

    as_of: str
    citations: list[CitationOut]
    summary: SummaryOut


# --- laws -----------------------------------------------------------------------------------


class LawOut(Schema):
    id: int
    name: str
    short_name: str
    level: str
    issuer: str | None
    repealed_on: date | None = None


class LawSearchResponse(Schema):
    query: str
    laws: list[LawOut]


class VersionOut(Schema):
    id: int
    label: str
    promulgated: date | None
    effective_from: date | None
    effective_to: date | None = Field(description="The day it stopped being in force; null: open.")
    article_count: int
    has_text: bool = Field(description="False for laws known only by facts (repealed codes).")
    in_force_today: bool
    sources: list[str] = Field(
        default_factory=list, description="Every source holding this version (lawrefbook:…, flk:…)."
    )


class RepealOut(Schema):
    repealed_on: date | None = Field(description="null: a source says repealed, without a date.")
    repealed_by: str | None
    successor: LawOut | None
    source: str | None = Field(
        default=None, description="clause | census | interpretation | repealed_laws"
    )
    note: str | None = None


class LawDetail(Schema):
    law: LawOut
    versions: list[VersionOut] = Field(description="Oldest first.")
    repeal: RepealOut | None


class DiffPart(Schema):
    op: Literal["equal", "insert", "delete"]
    text: str


class ArticleVersionOut(Schema):
    """One version's text of the article (null text: not in that version, or no text kept)."""

    version: VersionOut
    label: str | None
    number: int | None
    suffix: str | None
    deleted: bool
    text: str | None
    chapter_path: list[str]
    matched_by: Literal["number", "alignment"] | None = Field(
        description="How this version's article was found: same number, or by aligning texts "
        "of consecutive versions (the article was renumbered)."
    )
    changes: list[DiffPart] | None = Field(
        description="Character diff from the previous version's text; null when there is none."
    )


class ArticleDetail(Schema):
    law: LawOut
    as_of: date
    number: int
    suffix: str | None
    label: str
    in_force: ArticleVersionOut | None = Field(
        description="The article as in force on as_of; null when no version is in force then."
    )
    versions: list[ArticleVersionOut] = Field(description="Every version, oldest first.")
    repeal: RepealOut | None
    successors: list[ArticleRefOut] = Field(description="Articles that took this one over.")


# --- health ---------------------------------------------------------------------------------


class HealthResponse(Schema):
    status: Literal["ok"]


class ReadyResponse(Schema):
    status: Literal["ready"]
    laws: int
    versions: int
    articles: int


# --- POST /gate, POST /premise (the gate's types, field for field) --------------------------


class GateRequest(Schema):
    question: str | None = Field(
        default=None, min_length=1, description="The question the answer replies to."
    )
    answer: str = Field(min_length=1, description="The answer to gate.")
    subject_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="Who asked (stored only as a keyed pseudonym).",
    )
    session_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="The conversation; the same id continues its open round (stored only as a "
        "pseudonym). Omitted: a new session, whose id the response gives.",
    )
    attempt: int | None = Field(
        default=None,
        ge=1,
        description="1 starts a new round; N > 1 must be the round's next attempt (else 409). "
        "Omitted: continue the session's open round, or start one.",
    )
    as_of: date | None = Field(
        default=None,
        description="Gate as of this day (YYYY-MM-DD); default today. A round keeps the date "
        "of its first answer.",
    )


class RateCountsOut(Schema):
    citations: int
    provisions: int
    verified: int
    content_unsupported: int = 0
    deprecated: int
    not_yet_effective: int
    unverified: int


class ProvisionOut(Schema):
    law: str | None
    article: int
    article_suffix: str | None
    paragraph: int | None
    item: int | None
    label: str


class FailureOut(Schema):
    signal: str
    correctable: bool
    provision: ProvisionOut
    surface: str
    start: int
    end: int
    detail: str | None


class EvidenceOut(Schema):
    text: str
    start: int | None
    end: int | None
    note: str | None


class StandardOut(Schema):
    name: str
    passed: bool
    summary: str
    evidence: list[EvidenceOut]


class FactOut(Schema):
    kind: str
    text: str
    law: str | None
    provision: str | None


class ChatMessageOut(Schema):
    role: Literal["system", "user", "assistant"]
    content: str


class RerunRequestOut(Schema):
    messages: list[ChatMessageOut]
    session_id: str
    attempt: int


class RoundOut(Schema):
    state: Literal[
        "open", "passed", "passed_after_rerun", "data_boundary", "exhausted", "regenerator_error"
    ]
    delivery: Literal["deliver_with_badges", "block"] | None = Field(
        description="Set once the round has ended."
    )
    attempts: int = Field(description="Answers recorded in the round so far.")
    max_attempts: int
    next_attempt: int | None = Field(description="The attempt to send next; null: ended.")
    as_of: str
    question: str | None


class GateResponse(Schema):
    """The gate's decision on one answer, as recorded in the audit trail."""

    session_id: str = Field(description="Send it with the next answer to continue the round.")
    case_id: str = Field(description="The audit case the round is recorded as.")
    attempt: int
    as_of: str
    decision: Literal["pass", "rerun", "pass_boundary", "no_citations"]
    verifiable_rate: float | None = Field(description="null when nothing is cited.")
    counts: RateCountsOut
    failures: list[FailureOut]
    standards: list[StandardOut] = Field(description="The seven standards, in order.")
    injected_facts: list[FactOut] = Field(
        description="The facts of the rerun request that produced this answer."
    )
    facts: list[FactOut] = Field(description="The facts from this answer's failures.")
    rerun_request: RerunRequestOut | None = Field(
        description="What to send to the model for the next attempt; null when none is asked."
    )
    round: RoundOut


class PremiseRequest(Schema):
    question: str = Field(min_length=1, description="The question, before any answer exists.")
    as_of: date | None = Field(default=None, description="As of this day; default today.")


class PremiseResponse(Schema):
    as_of: str
    facts: list[FactOut] = Field(description="Facts to put into the generation prompt.")
