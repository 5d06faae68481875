"""Intermediate, frozen types of the corpus reader (what one file yields before chaining)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from legaldb.models import ParsedArticle

# Kinds of history events, as the header lines name them.
ADOPTED = "通过"
AMENDED = "修正"
REVISED = "修订"
APPROVED = "批准"
PUBLISHED = "公布"
IN_FORCE = "施行"
OTHER = "其他"
ENACTING = (ADOPTED, AMENDED, REVISED, APPROVED, PUBLISHED)

# What a version's text is, for the effective-date rules.
ORIGINAL = "original"
REVISION = "revision"
AMENDMENT = "amendment"


@dataclass(frozen=True, slots=True)
class HistoryEvent:
    """One dated event of a header line: 2021年8月20日 …会议通过."""

    on: date
    kind: str  # ADOPTED, AMENDED, REVISED, APPROVED, PUBLISHED, IN_FORCE or OTHER
    text: str  # the event as written, after its date
    effective: date | None = None  # an effective date the event states (公布施行, 该修正自…施行)
    act: str | None = None  # the act named in it: 《关于修改〈…〉的决定》, 《…修正案（十二）》


@dataclass(frozen=True, slots=True)
class Header:
    """What precedes `<!-- INFO END -->`: title, subtitle and history."""

    title: str
    subtitle: str | None
    history: tuple[str, ...]  # the history lines, continuation lines joined
    events: tuple[HistoryEvent, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MetadataRow:
    """A row of the collection's own db.sqlite3 `law` table (a hint only)."""

    name: str
    level: str | None
    publish: date | None
    valid_from: date | None
    expired: bool
    folder: str


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """One corpus file, read but not yet grouped with the other files of its law."""

    path: str  # relative to the corpus root
    category: str  # first folder, e.g. 民法商法 (DLC: the sub-collection, e.g. DLC/上海地方法规)
    level: str
    header: Header
    articles: tuple[ParsedArticle, ...]
    file_date: date | None
    metadata: MetadataRow | None
    issuer: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Dating:
    """The dates of one version and how they were established."""

    kind: str  # ORIGINAL, REVISION or AMENDMENT
    label: str
    promulgated: date | None
    effective_from: date | None
    effective_rule: str | None
    notes: tuple[str, ...] = field(default=())
    amending_act: str | None = None  # for an amendment: the act named by its last event
