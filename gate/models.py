"""The gate's plain data types (no algorithm code here)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SkipValidation

from gate.policy import Delivery, Policy
from verifier.models import CheckResult, Verdict


class _Frozen(BaseModel):
    model_config = ConfigDict(
        frozen=True, extra="forbid", json_schema_serialization_defaults_required=True
    )


class ChatMessage(_Frozen):
    """One message of a chat-completions conversation."""

    role: Literal["system", "user", "assistant"]
    content: str


class RerunRequest(_Frozen):
    """What a rerun sends to the model: the messages, for which session and which attempt."""

    messages: tuple[ChatMessage, ...] = Field(min_length=1)
    session_id: str = Field(min_length=1)
    attempt: int = Field(ge=1, description="1 is the first answer, 2 the first rerun, ...")


class TokenLogprob(_Frozen):
    """One candidate token and its natural-log probability."""

    token: str
    logprob: float


class FirstTokenLogprobs(_Frozen):
    """The logprob of the first generated token and of its top alternatives, best first."""

    token: str
    logprob: float
    top: tuple[TokenLogprob, ...] = ()


class Completion(_Frozen):
    """The parsed reply of one chat completion."""

    content: str
    model: str | None = None
    finish_reason: str | None = None
    first_token_logprobs: FirstTokenLogprobs | None = Field(
        default=None, description="Present when logprobs were asked for."
    )


# --- The decision on one answer (gate.decide, gate.standards, gate.facts) ---

Decision = Literal["pass", "rerun", "pass_boundary", "no_citations"]
"""pass: rate >= policy; rerun: below it with a failure the data can correct (or strict mode);
pass_boundary: below it with failures only outside the data; no_citations: nothing cited."""

Signal = Literal[
    "article_not_found",
    "paragraph_not_found",
    "item_not_found",
    "law_not_found",
    "law_outside_coverage",
    "repealed",
    "superseded",
    "article_deleted",
    "not_yet_effective",
    "version_in_force_missing",
    "effective_date_unknown",
    "quote_mismatch",
    "content_partly",
    "number_conflict",
    "claim_contradicted",
    "claim_unsupported",
]
"""What went wrong with one cited provision (docs/gate.md lists which signals are correctable)."""

CORRECTABLE_SIGNALS: frozenset[str] = frozenset(
    {
        "article_not_found",
        "paragraph_not_found",
        "item_not_found",
        "law_not_found",
        "repealed",
        "superseded",
        "article_deleted",
        "not_yet_effective",
        "quote_mismatch",
        "number_conflict",
        "claim_contradicted",
    }
)
"""Failures the data can correct: a rerun given the facts can fix them."""

INVENTED_SIGNALS: frozenset[str] = frozenset(
    {"article_not_found", "paragraph_not_found", "item_not_found", "law_not_found"}
)
"""Citations of something the data shows does not exist (the strict mode reruns on them)."""

INVENTED_ARTICLE: Signal = "article_not_found"
"""An article its law does not have: what the top lists of invented articles count (the
/audit page and the evidence pack's clusters alike)."""

REPEALED_LAW: Signal = "repealed"
"""A provision of a repealed law: what the top lists of repealed laws count (page and pack)."""

StandardName = Literal[
    "verifiable_rate",
    "no_invented_articles",
    "no_repealed_as_current",
    "no_quote_mismatch",
    "no_number_conflict",
    "conclusions_have_basis",
    "tail_coverage",
]

FactKind = Literal[
    "article_count",
    "paragraph_count",
    "item_count",
    "law_not_in_data",
    "repealed",
    "superseded",
    "article_deleted",
    "not_yet_effective",
    "quote_mismatch",
    "content_partly",
    "number_conflict",
    "no_citations",
    "upcoming_version",
    "only_future_version",
    "law_repealed",
    "claim_contradicted",
]

RoundState = Literal[
    "open", "passed", "passed_after_rerun", "data_boundary", "exhausted", "regenerator_error"
]


class Provision(_Frozen):
    """One distinct cited provision: law, article, suffix, 款, 项 (repeats count once)."""

    law: str | None
    article: int
    article_suffix: str | None = None
    paragraph: int | None = None
    item: int | None = None
    label: str = Field(
        description="As a person reads it: 《中华人民共和国民法典》第五百七十七条第一款"
    )


class Failure(_Frozen):
    """One failure signal on one distinct provision, at its first occurrence in the answer."""

    signal: Signal
    correctable: bool
    provision: Provision
    surface: str
    start: int
    end: int
    detail: str | None = Field(
        default=None, description="What distinguishes two failures of one signal (a number)."
    )


class RateCounts(_Frozen):
    """The distinct provisions of an answer by tier (worst tier when occurrences differ)."""

    citations: int = Field(ge=0, description="Citation occurrences, repeats included.")
    provisions: int = Field(ge=0)
    verified: int = Field(ge=0)
    deprecated: int = Field(ge=0)
    not_yet_effective: int = Field(ge=0)
    unverified: int = Field(ge=0)
    content_unsupported: int = Field(
        default=0,
        ge=0,
        description="Verified provisions whose stated content the article does not support "
        "(and, when the policy reruns on it, supports only in part): not verifiable.",
    )

    @property
    def verifiable(self) -> int:
        """Provisions that count for the verifiable rate: verified, content not unsupported."""
        return self.verified - self.content_unsupported


class Fact(_Frozen):
    """One sentence of database facts put into a rerun or a generation prompt."""

    kind: FactKind
    text: str
    law: str | None = None
    provision: str | None = Field(default=None, description="The provision's label, if any.")


class Evidence(_Frozen):
    """What a standard points at: a citation or a sentence of the answer, with a note."""

    text: str
    start: int | None = None
    end: int | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Conclusion:
    """A sentence stating a legal rule or outcome, and whether a citation supports it (a
    citation stands in the sentence or its paragraph). Internal to the standards, like
    `Finding`: a dataclass, not a validated model (five per answer)."""

    text: str
    start: int
    end: int
    supported: bool


class Standard(_Frozen):
    """One named quality standard, passed or failed, with its evidence."""

    name: StandardName
    passed: bool
    summary: str
    evidence: tuple[Evidence, ...] = ()


class TailCoverage(_Frozen):
    """Supported conclusions in the head and in the tail (the last policy.tail_fraction of the
    characters) of a long answer; not applicable to a shorter one."""

    applicable: bool
    head_conclusions: int = Field(default=0, ge=0)
    head_supported: int = Field(default=0, ge=0)
    tail_conclusions: int = Field(default=0, ge=0)
    tail_supported: int = Field(default=0, ge=0)

    @property
    def passed(self) -> bool:
        """The tail's conclusions are supported at least as often as the head's."""

        def share(supported: int, total: int) -> float:
            return supported / total if total else 1.0

        return share(self.tail_supported, self.tail_conclusions) >= share(
            self.head_supported, self.head_conclusions
        )


@dataclass(frozen=True, slots=True)
class Finding:
    """A failure with the verdict of its first occurrence and the fact it yields, if any."""

    failure: Failure
    verdict: Verdict
    fact: Fact | None


class Decided(_Frozen):
    """What the gate decided on one answer: shared by a `GateResult` and an `AttemptRecord`."""

    decision: Decision
    verifiable_rate: float | None = Field(description="None when nothing is cited.")
    counts: RateCounts
    failures: tuple[Failure, ...] = ()
    standards: tuple[Standard, ...] = ()
    facts: tuple[Fact, ...] = Field(
        default=(), description="One per failure (or the no-citation fact): the rerun's facts."
    )
    rerun_request: RerunRequest | None = None
    judged: tuple[JudgedCitation, ...] = Field(
        default=(), description="The model judge's judgements, when a judge was given (gate.judge)."
    )
    judge_error: str | None = Field(
        default=None, description="Why the judge gave no (or not every) judgement."
    )
    tail_coverage: TailCoverage | None = Field(
        default=None, description="The figures behind the tail_coverage standard."
    )


class GateResult(Decided):
    """The gate's decision on one answer, with the rate, failures, standards and facts."""

    as_of: str


@dataclass(frozen=True, slots=True)
class Turn:
    """Which answer is assessed: the question it replies to, the round's session id (None: a
    digest of question and answer) and its attempt in that round (a rerun asks for attempt + 1)."""

    question: str | None = None
    session_id: str | None = None
    attempt: int = 1


@dataclass(frozen=True, slots=True)
class Assessment:
    """An answer's whole assessment: the verifier's check and the gate's result (with the
    judge's judgements). Made only by `gate.assess_answer`; rounds keep it, audit records it."""

    check: CheckResult
    result: GateResult


# --- Rounds (gate.rounds) ---


class AttemptRecord(Decided):
    """One answer of a round: what it was, how it fared and what the gate did next."""

    attempt: int = Field(ge=1)
    answer: str
    injected_facts: tuple[Fact, ...] = Field(
        default=(), description="The facts of the request that produced this answer."
    )
    rerun_request: RerunRequest | None = Field(
        default=None, description="The request asking for the next attempt, if one was made."
    )
    check: SkipValidation[CheckResult | None] = Field(
        default=None,
        exclude=True,
        repr=False,
        description="The verifier's check of the answer (in memory only: not in the JSON).",
    )


class RoundRecord(_Frozen):
    """A whole round: every attempt, the state and, once ended, what is delivered.

    Built only by gate.rounds; the same record results whether the gate called the model
    itself or the caller regenerated and submitted each attempt.
    """

    session_id: str = Field(min_length=1)
    question: str | None
    as_of: str
    policy: Policy
    max_attempts: int = Field(ge=1)
    premise_facts: tuple[Fact, ...] = Field(
        default=(), description="Facts put into the first generation prompt (gate.premise)."
    )
    attempts: tuple[AttemptRecord, ...] = ()
    state: RoundState = "open"
    delivery: Delivery | None = Field(
        default=None, description="Set when the round ends; every delivered answer has badges."
    )
    error: str | None = Field(default=None, description="Why the model gave no answer.")

    @property
    def rerun_request(self) -> RerunRequest | None:
        """The request for the next attempt while the round is open."""
        if self.state != "open" or not self.attempts:
            return None
        return self.attempts[-1].rerun_request

    @property
    def next_turn(self) -> Turn:
        """The turn of the round's next answer."""
        return Turn(self.question, self.session_id, len(self.attempts) + 1)

    @property
    def final_answer(self) -> str | None:
        """The last answer submitted."""
        return self.attempts[-1].answer if self.attempts else None


# --- The model judge (gate.judge) ---

Relation = Literal["supports", "contradicts", "says_nothing"]
"""How an article relates to the claim an answer draws from it."""

RELATIONS: tuple[Relation, ...] = ("supports", "contradicts", "says_nothing")


class JudgeQuestion(_Frozen):
    """What the judge reads: the cited provision, the claim sentence, the article as in force."""

    law: str
    provision: str = Field(description="The provision's label: 《…》第…条第…款.")
    claim: str = Field(min_length=1)
    article_text: str = Field(min_length=1)


class Judgement(_Frozen):
    """The judge's probability of each relation; confidence is the top one."""

    supports: float = Field(ge=0.0, le=1.0)
    contradicts: float = Field(ge=0.0, le=1.0)
    says_nothing: float = Field(ge=0.0, le=1.0)
    model: str | None = None

    @property
    def probabilities(self) -> dict[Relation, float]:
        """Relation → probability, in the order of RELATIONS."""
        return {relation: getattr(self, relation) for relation in RELATIONS}

    @property
    def relation(self) -> Relation:
        """The most probable relation (ties go to the earlier of RELATIONS)."""
        probabilities = self.probabilities
        return max(RELATIONS, key=lambda relation: probabilities[relation])

    @property
    def confidence(self) -> float:
        """The top probability."""
        return max(self.supports, self.contradicts, self.says_nothing)


class JudgedCitation(_Frozen):
    """One judged (provision, claim): the question, the judgement and whether it stands.

    stands: confidence >= threshold, the judgement decides; else it goes to human review.
    """

    question: JudgeQuestion
    judgement: Judgement
    threshold: float = Field(ge=0.0, le=1.0)
    stands: bool
    start: int = Field(description="Where the citation stands in the answer.")
    end: int


@dataclass(frozen=True, slots=True)
class Judgements:
    """What the model judge said of one answer (gate.judge): its judged citations, and why it
    gave none (or not every one), if so."""

    judged: tuple[JudgedCitation, ...] = ()
    error: str | None = None


Decided.model_rebuild()
GateResult.model_rebuild()
AttemptRecord.model_rebuild()
RoundRecord.model_rebuild()


class CalibrationItem(_Frozen):
    """One labelled item of a calibration file: the claim, the provision, the right relation."""

    id: str
    claim: str = Field(min_length=1)
    law: str = Field(min_length=1)
    article: str = Field(min_length=1, description="第十五条, 第十五条第二款, or 15.")
    expected: Relation
    as_of: str | None = Field(default=None, description="ISO date; default: the run's date.")


class CalibrationOutcome(_Frozen):
    """One calibration item judged: the judgement, or why it has none."""

    item: CalibrationItem
    judgement: Judgement | None = None
    skipped: str | None = Field(default=None, description="Why the item was not judged.")


class ThresholdRow(_Frozen):
    """At one threshold: judgements that stand, how many of those are right, how many go to
    review (standing + review = judged items)."""

    threshold: float
    stand: int
    right: int
    review: int

    @property
    def precision(self) -> float | None:
        """right / stand; None when nothing stands."""
        return self.right / self.stand if self.stand else None


class CalibrationReport(_Frozen):
    """The confusion matrix (expected → judged → items) and the threshold table."""

    items: int
    judged: int
    skipped: int
    confusion: dict[Relation, dict[Relation, int]]
    thresholds: tuple[ThresholdRow, ...]
    outcomes: tuple[CalibrationOutcome, ...] = ()

    @property
    def accuracy(self) -> float | None:
        """Share of judged items whose top relation is the expected one."""
        right = sum(self.confusion[r][r] for r in RELATIONS)
        return right / self.judged if self.judged else None
