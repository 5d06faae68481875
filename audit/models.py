"""Plain, frozen data types of the audit package (no algorithm code here)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: importing the audit types loads no gate or verifier code
    from gate.models import RoundRecord


class PiiKind(StrEnum):
    """The kinds of personal data `mask_pii` finds, in the order its rules run."""

    EMAIL = "email"
    ID_CARD = "id_card"  # 居民身份证号
    BANK_CARD = "bank_card"
    MOBILE = "mobile"
    LANDLINE = "landline"

    @property
    def placeholder(self) -> str:
        """The typed placeholder that replaces a match in masked text."""
        return PLACEHOLDERS[self]


PLACEHOLDERS: Mapping[PiiKind, str] = {
    PiiKind.EMAIL: "[邮箱]",
    PiiKind.ID_CARD: "[身份证号]",
    PiiKind.BANK_CARD: "[银行卡号]",
    PiiKind.MOBILE: "[手机号]",
    PiiKind.LANDLINE: "[固定电话]",
}


@dataclass(frozen=True, slots=True)
class PiiMatch:
    """One piece of personal data found in a text: its kind and span [start, end)."""

    kind: PiiKind
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class MaskResult:
    """Masked text and how many matches of each kind were replaced (kinds not found: absent)."""

    text: str
    counts: Mapping[PiiKind, int] = field(default_factory=dict, hash=False)

    @property
    def total(self) -> int:
        """Number of replacements of every kind."""
        return sum(self.counts.values())


class PseudonymKind(StrEnum):
    """Kinds of identifier the audit trail pseudonymises; the value is the pseudonym's prefix."""

    SUBJECT = "subj"
    SESSION = "sess"


@dataclass(frozen=True, slots=True)
class PseudonymScheme:
    """How pseudonyms are made, for an evidence pack's manifest (names the key, never holds it)."""

    key_id: str
    algorithm: str = "HMAC-SHA256"
    message: str = "lexgate-pseudonym-v1 NUL kind NUL raw_id (UTF-8)"
    digest_hex_chars: int = 32
    format: str = "{kind}_{key_id}_{hex}"


@dataclass(frozen=True, slots=True)
class MappingEntry:
    """One row of the mapping store: a pseudonym and the real identifier behind it."""

    pseudonym: str
    kind: str
    raw_id: str
    first_seen: datetime


# --- The audit record (audit.recorder) ---


@dataclass(frozen=True, slots=True)
class Recording:
    """A gated round to record (its attempts hold their assessments), with who asked and when;
    as a new case, or in the case it continues (case_id)."""

    round: RoundRecord
    subject_id: str | None = None
    recorded_at: datetime | None = None
    case_id: str | None = None


@dataclass(frozen=True, slots=True)
class TracedAttempt:
    """One attempt of a traced case, as recorded."""

    attempt: int
    recorded_at: datetime
    decision: str
    verifiable_rate: float | None
    answer_sha256: str
    answer: str  # PII masked


@dataclass(frozen=True, slots=True)
class TracedCase:
    """A recorded case found by tracing a pseudonym."""

    case_id: str
    recorded_at: datetime
    subject: str | None
    session: str
    as_of: date
    state: str
    delivery: str | None
    question: str | None  # PII masked
    attempts: tuple[TracedAttempt, ...]


@dataclass(frozen=True, slots=True)
class Trace:
    """A pseudonym resolved through the mapping store, and the cases recorded under it."""

    entry: MappingEntry
    cases: tuple[TracedCase, ...]


# --- Evidence packs (audit.export, audit.pack) ---


@dataclass(frozen=True, slots=True)
class Period:
    """A calendar quarter in a timezone: [start, end), both timezone-aware."""

    label: str  # 2026Q4
    timezone: str
    start: datetime
    end: datetime


@dataclass(frozen=True, slots=True)
class PackSummary:
    """What an export wrote or a verification found: the pack, its period and its counts."""

    path: str
    pack_id: str
    period: str
    cases: int
    attempts: int
    citations: int
    sha256: str  # of the whole zip file, for the record kept apart from the pack
    size_bytes: int
    signer: str | None = (
        None  # the fingerprint of the key that signed it (or whose signature checked)
    )


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """One citation in the judge's review queue, with the reviewer's decision once made.

    outcome: pending, confirmed (the reviewer chose the judge's relation) or overridden.
    """

    id: int
    case_id: str
    attempt: int
    enqueued_at: datetime
    as_of: date
    law: str
    provision: str
    claim: str  # PII masked
    article_text: str
    probabilities: dict[str, float]  # supports, contradicts, says_nothing
    judge_relation: str
    confidence: float
    threshold: float
    model: str | None
    decision: str | None
    reviewer: str | None
    decided_at: datetime | None
    note: str | None

    @property
    def outcome(self) -> str:
        """pending, confirmed or overridden."""
        if self.decision is None:
            return "pending"
        return "confirmed" if self.decision == self.judge_relation else "overridden"
