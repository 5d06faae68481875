"""Plain, frozen data types of the audit package (no algorithm code here)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


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
