"""Pydantic schemas of the HTTP API (requests and responses); never ORM models.

The responses hold the core models themselves (the verifier's dataclasses, the gate's pydantic
models) or are built from their fields, so there is one definition of each; the check response
is `verifier.result_to_json` (the CLI's JSON), and a test validates real responses against
these models with extra fields forbidden.
"""

from __future__ import annotations

import dataclasses
from datetime import date
from typing import TYPE_CHECKING, Any, Literal, TypeVar, get_args, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from extractor.models import Citation
from gate.models import (
    Decision,
    Delivery,
    Fact,
    Failure,
    RateCounts,
    RerunRequest,
    RoundState,
    Standard,
)
from verifier.models import (
    ArticleRef,
    Badge,
    Difference,
    Facts,
    FoundIn,
    NumberConflict,
    QuoteCheck,
    Resolved,
    Summary,
    Support,
    Verdict,
)


class Schema(BaseModel):
    """Base: unknown fields are an error (requests: 422; responses: caught by the tests)."""

    model_config = ConfigDict(extra="forbid")


SchemaT = TypeVar("SchemaT", bound=Schema)


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


def _fields(core: type, *, absent: bool = False, **replaced: Any) -> dict[str, Any]:
    """A core dataclass's fields as pydantic field definitions, in order and all required;
    `replaced` gives some another (type, default), None leaves one out. absent: the JSON leaves
    out the fields that are None or empty, so each keeps its default (None if it has none)."""
    hints = get_type_hints(core)
    fields: dict[str, Any] = {}
    for field in dataclasses.fields(core):
        spec = replaced.get(field.name, (hints[field.name], ...))
        if spec is None:
            continue
        if absent and spec[1] is ...:
            if field.default is not dataclasses.MISSING:
                spec = (spec[0], field.default)
            elif type(None) in get_args(spec[0]):
                spec = (spec[0], None)
        fields[field.name] = spec
    return fields


def derived(core: type, *, absent: bool = False, **replaced: Any) -> type[Schema]:
    """The schema `<Core>Out` of a core dataclass (its fields, see `_fields`, and docstring)."""
    return create_model(
        f"{core.__name__}Out",
        __base__=Schema,
        __doc__=core.__doc__,
        __module__=__name__,
        **_fields(core, absent=absent, **replaced),
    )


def from_core(schema: type[SchemaT], core: object, **given: Any) -> SchemaT:
    """The `schema` of a core object: each field not `given` from its attribute of that name."""
    taken = {name: getattr(core, name) for name in schema.model_fields if name not in given}
    return schema.model_validate({**taken, **given})


class SpanOut(Schema):
    """A span of the answer (`extractor.Span`), its text left out unless with_text."""

    text: str | None = Field(default=None, description="Only with with_text.")
    start: int
    end: int


# The check's citation (the extractor's Citation, then the verifier's Verdict with the badge)
# and summary, each part derived from the core model of it (spans and the article's text left
# out unless with_text; facts and support without their None and empty fields).
if TYPE_CHECKING:
    CitationOut = BaseModel
    SummaryOut = BaseModel
else:
    ArticleRefOut = derived(ArticleRef, absent=True)
    FactsOut = derived(
        Facts,
        absent=True,
        successors=(list[ArticleRefOut], []),
        corresponding=(ArticleRefOut | None, None),
    )
    ResolvedOut = derived(Resolved, article_text=(str | None, None))
    FoundInOut = derived(FoundIn, absent=True)
    QuoteCheckOut = derived(QuoteCheck, found_in=(list[FoundInOut], ...))
    NumberConflictOut = derived(NumberConflict)
    DifferenceOut = derived(Difference)
    SupportOut = derived(
        Support,
        absent=True,
        differences=(list[DifferenceOut], []),
        found_in=(list[FoundInOut], []),
    )
    SummaryOut = create_model(
        "SummaryOut",
        __base__=Schema,
        __doc__=Summary.__doc__,
        __module__=__name__,
        # notYetEffective: the status's name, as in the CLI's JSON
        **_fields(Summary, not_yet_effective=(int, Field(alias="notYetEffective"))),
        line=(
            str,
            Field(description="已校对 6 条 · 现行有效 5 · 已废止 1 · 尚未生效 0 · 未能核验 0"),
        ),
    )
    CitationOut = create_model(
        "CitationOut",
        __base__=Schema,
        __doc__="One citation: the extractor's Citation and the verifier's Verdict of it.",
        __module__=__name__,
        **_fields(Citation, quote=(SpanOut | None, ...), claim=(SpanOut | None, ...)),
        badge=(Badge, ...),
        **_fields(
            Verdict,
            citation=None,
            facts=(FactsOut, ...),
            resolved=(ResolvedOut | None, ...),
            quote_check=(QuoteCheckOut, ...),
            number_conflicts=(list[NumberConflictOut], ...),
            support=(SupportOut, ...),
        ),
    )


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
    successors: list[ArticleRef] = Field(description="Articles that took this one over.")


# --- health ---------------------------------------------------------------------------------


class HealthResponse(Schema):
    status: Literal["ok"]


class ReadyResponse(Schema):
    status: Literal["ready"]
    laws: int
    versions: int
    articles: int


# --- POST /gate, POST /premise (the gate's own models inside) -------------------------------


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


class RoundOut(Schema):
    state: RoundState
    delivery: Delivery | None = Field(description="Set once the round has ended.")
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
    decision: Decision
    verifiable_rate: float | None = Field(description="null when nothing is cited.")
    counts: RateCounts
    failures: list[Failure]
    standards: list[Standard] = Field(description="The seven standards, in order.")
    injected_facts: list[Fact] = Field(
        description="The facts of the rerun request that produced this answer."
    )
    facts: list[Fact] = Field(description="The facts from this answer's failures.")
    rerun_request: RerunRequest | None = Field(
        description="What to send to the model for the next attempt; null when none is asked."
    )
    round: RoundOut


class PremiseRequest(Schema):
    question: str = Field(min_length=1, description="The question, before any answer exists.")
    as_of: date | None = Field(default=None, description="As of this day; default today.")


class PremiseResponse(Schema):
    as_of: str
    facts: list[Fact] = Field(description="Facts to put into the generation prompt.")
