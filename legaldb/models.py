"""Plain, frozen data types the repository answers with (never ORM objects).

These are the statute database's public vocabulary: `verifier` and `web` read them; the ORM
models in `legaldb.orm` stay inside `legaldb`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

# Levels of Chinese legislation, highest first.
LEVELS = ("宪法", "法律", "行政法规", "监察法规", "司法解释", "部门规章", "地方性法规", "其他")


def level_rank(level: str) -> int:
    """Where a level sorts: LEVELS' order, an unknown one last."""
    return LEVELS.index(level) if level in LEVELS else len(LEVELS)


@dataclass(frozen=True, slots=True)
class LawInfo:
    """A law as a work, across its versions."""

    id: int
    name: str  # canonical, e.g. 中华人民共和国公司法
    short_name: str  # e.g. 公司法
    level: str  # one of LEVELS
    issuer: str | None = None
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class VersionInfo:
    """One promulgated text of a law and the period it is (or was) in force."""

    id: int
    law_id: int
    label: str  # e.g. 2023年修订, 2018年修正, 1999年
    promulgated: date | None
    effective_from: date | None  # None: could not be established (listed by `db stats`)
    effective_to: date | None  # next version's effective_from, or the repeal date; None: open
    article_count: int
    has_text: bool  # False for laws known only by facts (the nine laws repealed by 民法典)
    source: str | None = None  # where the text came from (corpus file, flk:<id> …)
    effective_rule: str | None = None  # which importer rule gave effective_from
    sources: tuple[str, ...] = ()  # every source holding this version (lawrefbook:…, flk:…)

    def in_force_on(self, as_of: date) -> bool:
        """True when as_of lies in [effective_from, effective_to)."""
        if self.effective_from is None or as_of < self.effective_from:
            return False
        return self.effective_to is None or as_of < self.effective_to


@dataclass(frozen=True, slots=True)
class ArticleInfo:
    """The structure of one article (no text): what the hot path needs."""

    version_id: int
    number: int
    suffix: str | None  # 之一, 之二 …
    label: str  # 第一百二十条之一
    deleted: bool  # "（删去）" in the text
    paragraph_count: int  # 款
    item_counts: tuple[int, ...]  # 项 per 款, same length as paragraph_count
    chapter_path: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Paragraph:
    """One 款 of an article with its 项."""

    text: str
    items: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ArticleText:
    """An article with its full text, loaded lazily."""

    info: ArticleInfo
    text: str  # the whole article after its label
    paragraphs: tuple[Paragraph, ...] = ()


@dataclass(frozen=True, slots=True)
class RepealInfo:
    """A law's repeal: when, by which provision, and its successor law."""

    law_id: int
    repealed_on: date | None  # None: a source says repealed but gives no date (the census)
    repealed_by: str | None
    successor_law_id: int | None
    source: str | None = None  # clause | census | repealed_laws | interpretation
    note: str | None = None  # why, for a person (an interpretation of a repealed law …)


@dataclass(frozen=True, slots=True)
class ArticleEvent:
    """What happened to an article in one version: appeared, unchanged, changed, moved (its
    text now under another number, found by aligning the two versions) or deleted."""

    version: VersionInfo
    event: str  # appeared | unchanged | changed | moved | deleted
    number: int  # the article's number in this version (the last one for deleted)
    suffix: str | None
    label: str
    similarity: float | None = None  # to the previous version's text (aligned pairs)


@dataclass(frozen=True, slots=True)
class Successor:
    """old article -> new article, curated or derived by aligning two versions' texts."""

    from_law_id: int
    from_version_id: int | None
    from_number: int
    from_suffix: str | None
    to_law_id: int
    to_version_id: int | None
    to_number: int
    to_suffix: str | None
    kind: str  # "curated" | "aligned"
    similarity: float | None = None
    changed: bool = False  # the rule changed in substance
    note: str | None = None  # curated: what changed (诉讼时效由二年改为三年)


@dataclass(frozen=True, slots=True)
class Lookup:
    """The hot-path answer for (name, article, date): law, version in force, article, repeal.

    `article` is looked up in `article_version`: the version in force when there is one,
    else the nearest version (the last one before as_of, or the first one after it), so a
    caller can still tell a repealed or not-yet-effective article from one that never existed.
    """

    law: LawInfo | None
    version: VersionInfo | None  # in force on as_of
    article: ArticleInfo | None
    repeal: RepealInfo | None
    article_version: VersionInfo | None = None


@dataclass(frozen=True, slots=True)
class Manifest:
    """Where the statute data came from and what it claims to cover completely."""

    source: str
    snapshot: str
    imported_at: str
    counts: dict[str, int] = field(default_factory=dict)
    complete_levels: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()  # "path: reason" for every file not imported


# --- What the corpus reader hands the importer (legaldb.corpus -> legaldb.importer) ---


@dataclass(frozen=True, slots=True)
class ParsedArticle:
    """One article as read from a corpus file."""

    number: int
    suffix: str | None
    label: str  # as written in the file, e.g. 第一百二十条之一
    text: str  # the article after its label, paragraphs joined by "\n"
    paragraphs: tuple[Paragraph, ...]
    deleted: bool
    chapter_path: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ParsedVersion:
    """One promulgated text (one file, or several files for 民法典's 编)."""

    law_name: str  # canonical title, e.g. 中华人民共和国公司法
    level: str  # one of LEVELS
    category: str  # corpus folder, e.g. 民法商法
    label: str  # e.g. 2023年修订
    promulgated: date | None
    effective_from: date | None
    effective_rule: str | None  # the docs/data.md rule that gave effective_from
    effective_to: date | None  # set when versions are chained
    source: str  # path relative to the corpus root
    articles: tuple[ParsedArticle, ...]
    history: tuple[str, ...] = ()  # the header lines (通过, 修正, 修订, 施行 …)
    issuer: str | None = None
    notes: tuple[str, ...] = ()  # every rule applied or doubt met, for docs and `db stats`
    sources: tuple[str, ...] = ()  # every source holding this version, the text's first


@dataclass(frozen=True, slots=True)
class ParsedLaw:
    """A law with its versions in effective order and its lookup aliases."""

    name: str
    short_name: str
    level: str
    issuer: str | None
    aliases: tuple[str, ...]
    versions: tuple[ParsedVersion, ...]


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A corpus file that was not imported, and why."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class RepealFact:
    """A repeal as a source states it: a 同时废止 clause, the census, or a derived rule."""

    law_name: str  # canonical name of the repealed law (in the read)
    repealed_on: date | None  # None: a source says repealed but gives no date
    repealed_by: str | None  # the repealing provision: 《中华人民共和国外商投资法》第四十二条
    successor: str | None  # canonical name of the law that replaced it
    source: str  # clause | census | interpretation
    note: str | None = None


@dataclass(frozen=True, slots=True)
class CorpusRead:
    """Everything read from one corpus tree (and, merged in, the other statute sources)."""

    laws: tuple[ParsedLaw, ...]
    skipped: tuple[SkippedFile, ...]
    undated: tuple[str, ...]  # versions whose effective date could not be established
    source: str
    snapshot: str
    repeals: tuple[RepealFact, ...] = ()
    differences: tuple[str, ...] = ()  # the same version in two sources, article by article


# --- What legaldb.repealed reads from repealed_laws.json (facts, no texts) ---


@dataclass(frozen=True, slots=True)
class RepealedLaw:
    """A repealed law known only by facts: dates, article count, successor."""

    name: str
    aliases: tuple[str, ...]
    adopted: date
    effective: date
    amended: tuple[date, ...]
    repealed: date
    article_count: int  # of the last version in force
    repealed_by: str
    successor: str | None


@dataclass(frozen=True, slots=True)
class CuratedSuccession:
    """A curated old article -> successor articles correspondence."""

    old_law: str
    old_number: int
    new_law: str
    new_numbers: tuple[int, ...]
    changed: str | None = None  # what changed in substance, None when the rule is the same
    old_suffix: str | None = None


@dataclass(frozen=True, slots=True)
class RepealedData:
    """Everything in repealed_laws.json."""

    laws: tuple[RepealedLaw, ...]
    correspondence: tuple[CuratedSuccession, ...]
    source: str


# --- Derived by legaldb.alignment from two versions' texts ---


@dataclass(frozen=True, slots=True)
class AlignedPair:
    """The new article that best matches an old one, and how similar their texts are."""

    old_number: int
    old_suffix: str | None
    new_number: int
    new_suffix: str | None
    similarity: float  # 0..1, rapidfuzz normalised Indel similarity
    changed: bool  # the texts differ (after removing whitespace)


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What one import stored, skipped and how long it took."""

    dataset: str
    counts: dict[str, int]
    skipped: tuple[str, ...]
    undated: tuple[str, ...]
    seconds: float
