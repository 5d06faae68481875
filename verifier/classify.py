"""Existence and time: one citation + the repository + an as-of date -> status, reason, facts.

The rules, in order (docs/verifier.md has an example of each):
1. The law is not in the data -> unverified / law_not_found, with the level its name suggests
   and whether the data claims to cover that level completely.
2. The law is repealed on the as-of date, or repealed on a date no source gives -> deprecated /
   repealed (facts: repeal date, the repealing provision, why, the successor law and articles
   with their text), unless the article never existed in its last version (-> unverified /
   article_not_found: invention beats age).
3. A version qualifier (2018年《公司法》, 《公司法》（2018年修正）) names a version other than the one in
   force -> deprecated / superseded (older) or notYetEffective / not_yet_effective (newer),
   with the corresponding article of the version in force.
4. No version in force yet -> notYetEffective / not_yet_effective (its effective date); but when
   the earliest version in the data is itself an amendment (2023年修正), the text in force then
   is outside the data -> unverified / version_not_in_data. The latest version promulgated by
   as_of has no known effective date -> unverified / effective_date_unknown, unless it was
   promulgated SETTLED_AFTER or longer before as_of: a text takes effect on or after its
   promulgation, and of the dated versions 99.4% within two years, so it is the one in force
   (rules 5-7 apply to it; facts.promulgated says on what the verdict rests).
5. The article is missing from the version in force -> notYetEffective when only a version not
   yet in force has it, else unverified / article_not_found (facts: the article count).
6. A deleted article -> deprecated / article_deleted; a 款 or 项 beyond the article's ->
   unverified / paragraph_not_found or item_not_found.
7. Otherwise verified / in_force, with a newer promulgated version not yet in force as a warning.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from typing import Any
from weakref import WeakKeyDictionary

from legaldb import StatuteRepository
from legaldb.models import ArticleInfo, LawInfo, Successor, VersionInfo
from textnorm import article_label
from verifier.memo import recall
from verifier.models import ArticleRef, Facts, Reason, Resolved, Status, new_resolved

_YEAR = re.compile(r"(\d{4})")
AMENDED_LABELS = ("修正", "修订")
# How long after its promulgation an undated version is taken to be in force (rule 4): of the
# 1,853 dated versions in the bundled data, 11 took effect more than two years after promulgation
# (the 港澳 basic laws and arrangements, and dates the metadata has wrong).
SETTLED_AFTER = timedelta(days=730)


@dataclass(frozen=True, slots=True)
class Classification:
    """The existence verdict and the version/article the content checks compare against."""

    status: Status
    reason: Reason
    facts: Facts
    resolved: Resolved | None
    law: LawInfo | None = None
    version: VersionInfo | None = None  # the version whose text the citation is held to
    article: ArticleInfo | None = None


@lru_cache(maxsize=4096)
def _iso(day: date | None) -> str | None:
    """The date as ISO text (memoised: the same versions' dates are written for every
    provision of their laws)."""
    return day.isoformat() if day else None


# An article's label, memoised: the same articles are cited again and again.
_label = lru_cache(maxsize=8192)(article_label)

FACTS_PER_REPOSITORY = 4096  # memoised facts (a law version's, with any extra facts)
_FACTS: WeakKeyDictionary[StatuteRepository, OrderedDict[tuple, Facts]] = WeakKeyDictionary()


def hinted_version(versions: list[VersionInfo], hint: str | None) -> VersionInfo | None:
    """The version a qualifier names: a year matching its label or promulgation date."""
    if not hint:
        return None
    year = _YEAR.search(hint)
    if not year:
        return None
    wanted = int(year.group(1))
    for version in reversed(versions):
        if version.label.startswith(year.group(1)) or (
            version.promulgated is not None and version.promulgated.year == wanted
        ):
            return version
    return None


def _article_ref(
    repo: StatuteRepository,
    law: LawInfo,
    version: VersionInfo | None,
    number: int,
    suffix: str | None,
    successor: Successor | None = None,
) -> ArticleRef:
    text = None
    if version is not None and version.has_text:
        found = repo.article_text(version.id, number, suffix)
        text = found.text if found else None
    return ArticleRef(
        law=law.name,
        article=number,
        article_suffix=suffix,
        label=_label(number, suffix),
        version_label=version.label if version else None,
        text=text,
        kind=successor.kind if successor else None,
        similarity=successor.similarity if successor else None,
        changed=successor.changed if successor else False,
        note=getattr(successor, "note", None) if successor else None,
    )


def successor_refs(
    repo: StatuteRepository,
    law: LawInfo,
    number: int,
    suffix: str | None,
    version: VersionInfo | None,
    as_of: date,
) -> tuple[ArticleRef, ...]:
    """The articles that took over this one, each with its text as in force on as_of."""
    refs = []
    for successor in repo.successors(law.id, number, suffix, version.id if version else None):
        to_law = repo.law(successor.to_law_id)
        if to_law is None:
            continue
        to_version = repo.version_in_force(to_law.id, as_of) or repo.latest_version(to_law.id)
        refs.append(
            _article_ref(
                repo, to_law, to_version, successor.to_number, successor.to_suffix, successor
            )
        )
    return tuple(refs)


def _exists_in(
    repo: StatuteRepository, version: VersionInfo, number: int, suffix: str | None
) -> bool:
    """Article present in a version; for text-less versions, within the known article count
    (a statute known only from a repeal clause or the census has none: not contradicted)."""
    if version.has_text:
        return repo.article(version.id, number, suffix) is not None
    return version.article_count == 0 or 1 <= number <= version.article_count


def _resolved(
    law: LawInfo, version: VersionInfo | None, number: int, suffix: str | None, text: str | None
) -> Resolved:
    return new_resolved(
        law.name,
        version.label if version else None,
        _iso(version.effective_from) if version else None,
        _iso(version.effective_to) if version else None,
        _label(number, suffix),
        text,
    )


def classify(
    repo: StatuteRepository,
    law_name: str | None,
    number: int,
    suffix: str | None,
    paragraph: int | None,
    item: int | None,
    as_of: date,
    version_hint: str | None = None,
) -> Classification:
    """Status, reason and facts of one cited provision on as_of: the rules of the module's
    docstring in order, each a stage that decides or passes the citation on."""
    law = repo.resolve(law_name) if law_name else None
    if law is None:
        return _law_not_found(repo, law_name)
    cited = _Cited.of(repo, law, number, suffix, paragraph, item, as_of, version_hint)
    decided = _repealed(cited) or _named_version(cited)
    if decided is not None:
        return decided
    if cited.in_force is None:
        return _nothing_in_force(cited)
    return _in_force(cited, cited.in_force)


@dataclass(slots=True)
class _Cited:
    """What the stages look at: the provision asked about, its law, and the law's versions as
    they stand on as_of (in force, the next one to come, the one a qualifier names).

    Not frozen, unlike the verdicts: one is made for every provision classified, and a frozen
    dataclass sets each field through object.__setattr__ (six times the cost of a store); the
    stages only read it."""

    repo: StatuteRepository
    law: LawInfo
    number: int
    suffix: str | None
    paragraph: int | None
    item: int | None
    as_of: date
    versions: list[VersionInfo]
    in_force: VersionInfo | None
    upcoming: VersionInfo | None
    named: VersionInfo | None
    upcoming_facts: dict[str, Any]

    @classmethod
    def of(
        cls,
        repo: StatuteRepository,
        law: LawInfo,
        number: int,
        suffix: str | None,
        paragraph: int | None,
        item: int | None,
        as_of: date,
        version_hint: str | None,
    ) -> _Cited:
        versions = repo.versions(law.id)
        upcoming = next(
            (v for v in versions if v.effective_from is not None and v.effective_from > as_of),
            None,
        )
        upcoming_facts: dict[str, Any] = (
            {
                "upcoming_version": upcoming.label,
                "upcoming_effective_from": _iso(upcoming.effective_from),
            }
            if upcoming is not None
            else {}
        )
        return cls(
            repo, law, number, suffix, paragraph, item, as_of, versions,
            in_force=repo.version_in_force(law.id, as_of),
            upcoming=upcoming,
            named=hinted_version(versions, version_hint),
            upcoming_facts=upcoming_facts,
        )  # fmt: skip

    def exists_in(self, version: VersionInfo) -> bool:
        return _exists_in(self.repo, version, self.number, self.suffix)

    def article_in(self, version: VersionInfo) -> ArticleInfo | None:
        return self.repo.article(version.id, self.number, self.suffix)

    def facts(self, version: VersionInfo, **extra: Any) -> Facts:
        """The facts of the law in a version (its dates, article count) and any extra ones,
        memoised per repository: the provisions of one law version mostly share them (145
        distinct facts among the 713 classifications of the first 600 flzx answers), and one
        object for equal facts lets the JSON lines write them once."""
        key = (self.law.id, version.id, *extra.items())
        return recall(
            _FACTS, self.repo, key, FACTS_PER_REPOSITORY, lambda: self._facts(version, extra)
        )

    def _facts(self, version: VersionInfo, extra: dict[str, Any]) -> Facts:
        return Facts(
            law=self.law.name,
            level=self.law.level,
            article_count=version.article_count or None,
            version_label=version.label,
            effective_from=_iso(version.effective_from),
            effective_to=_iso(version.effective_to),
            promulgated=_iso(version.promulgated) if version.effective_from is None else None,
            **extra,
        )

    def held_to(
        self,
        version: VersionInfo | None,
        status: Status,
        reason: Reason,
        facts: Facts,
        article: ArticleInfo | None = None,
    ) -> Classification:
        """The verdict, the citation held to this version (and this article of it)."""
        resolved = _resolved(self.law, version, self.number, self.suffix, None)
        return Classification(status, reason, facts, resolved, self.law, version, article)


def _law_not_found(repo: StatuteRepository, law_name: str | None) -> Classification:
    """1. Not in the data: the level its name suggests, and whether the data covers it."""
    level = repo.guess_level(law_name) if law_name else None
    covered = repo.covers_completely(level) if level else False
    facts = Facts(law=law_name, level=level, level_covered=covered)
    return Classification("unverified", "law_not_found", facts, None)


def _repealed(cited: _Cited) -> Classification | None:
    """2. Repealed on as_of, or on a date no source gives (unless the article never was)."""
    repo, law, repeal = cited.repo, cited.law, cited.repo.repeal(cited.law.id)
    if repeal is None or (
        repeal.repealed_on is not None
        and (cited.as_of < repeal.repealed_on or cited.in_force is not None)
    ):
        return None
    last = cited.versions[-1] if cited.versions else None
    successor = repo.law(repeal.successor_law_id) if repeal.successor_law_id else None
    repeal_facts: dict[str, Any] = {
        "repealed_on": _iso(repeal.repealed_on),
        "repealed_by": repeal.repealed_by,
        "repeal_note": repeal.note,
        "successor_law": successor.name if successor else None,
    }
    if last is None:
        return cited.held_to(
            None, "deprecated", "repealed", Facts(law=law.name, level=law.level, **repeal_facts)
        )
    if not cited.exists_in(last):
        return cited.held_to(
            last, "unverified", "article_not_found", cited.facts(last, **repeal_facts)
        )
    successors = successor_refs(repo, law, cited.number, cited.suffix, None, cited.as_of)
    facts = cited.facts(last, successors=successors, **repeal_facts)
    return cited.held_to(last, "deprecated", "repealed", facts, cited.article_in(last))


def _named_version(cited: _Cited) -> Classification | None:
    """3. A qualifier names a version other than the one in force."""
    named, in_force = cited.named, cited.in_force
    if named is None or (in_force is not None and named.id == in_force.id):
        return None
    if not cited.exists_in(named):
        return cited.held_to(named, "unverified", "article_not_found", cited.facts(named))
    article = cited.article_in(named)
    if named.effective_from is not None and named.effective_from > cited.as_of:
        return cited.held_to(
            named, "notYetEffective", "not_yet_effective", cited.facts(named), article
        )
    corresponding = _corresponding(
        cited.repo, cited.law, named, in_force, cited.number, cited.suffix, cited.as_of
    )
    facts = cited.facts(named, corresponding=corresponding, **cited.upcoming_facts)
    return cited.held_to(named, "deprecated", "superseded", facts, article)


def _nothing_in_force(cited: _Cited) -> Classification:
    """4. No version in force yet, or its dates unknown."""
    undated = _latest_promulgated(cited)
    if undated is not None and undated.effective_from is None:
        if undated.promulgated is not None and undated.promulgated + SETTLED_AFTER <= cited.as_of:
            return _in_force(cited, undated)
        return cited.held_to(undated, "unverified", "effective_date_unknown", cited.facts(undated))
    first_future = cited.upcoming
    if first_future is None:
        last = cited.versions[-1] if cited.versions else None
        law = cited.law
        facts = cited.facts(last) if last else Facts(law=law.name, level=law.level)
        return cited.held_to(last, "unverified", "effective_date_unknown", facts)
    article = cited.article_in(first_future)
    if first_future is cited.versions[0] and first_future.label.endswith(AMENDED_LABELS):
        # The earliest text in the data amends an older one the data lacks (刑法 2023年修正
        # before 2024-03-01): the text in force on as_of is outside the data.
        return cited.held_to(
            first_future, "unverified", "version_not_in_data", cited.facts(first_future), article
        )
    if cited.exists_in(first_future):
        return cited.held_to(
            first_future, "notYetEffective", "not_yet_effective", cited.facts(first_future), article
        )
    return cited.held_to(
        first_future, "unverified", "article_not_found", cited.facts(first_future), article
    )


def _latest_promulgated(cited: _Cited) -> VersionInfo | None:
    """The latest version started (or, undated, promulgated) by as_of, if it has not ended."""
    started = [
        v for v in cited.versions
        if (v.effective_from or v.promulgated or date.max) <= cited.as_of
    ]  # fmt: skip
    if not started:
        return None
    latest = started[-1]
    if latest.effective_to is not None and cited.as_of >= latest.effective_to:
        return None
    return latest


def _in_force(cited: _Cited, in_force: VersionInfo) -> Classification:
    """5.-7. The article in the version in force: missing, deleted, its 款 or 项 beyond the
    article's, else verified."""
    upcoming = cited.upcoming
    article = cited.article_in(in_force) if in_force.has_text else None
    if article is None and (in_force.has_text or not cited.exists_in(in_force)):
        if upcoming is not None and cited.exists_in(upcoming):
            return cited.held_to(
                upcoming,
                "notYetEffective",
                "not_yet_effective",
                cited.facts(upcoming),
                cited.article_in(upcoming),
            )
        facts = cited.facts(in_force, **cited.upcoming_facts)
        return cited.held_to(in_force, "unverified", "article_not_found", facts)
    if article is not None:
        missing_part = _missing_part(cited, in_force, article)
        if missing_part is not None:
            return missing_part
    facts = cited.facts(in_force, **cited.upcoming_facts)
    return cited.held_to(in_force, "verified", "in_force", facts, article)


def _missing_part(
    cited: _Cited, in_force: VersionInfo, article: ArticleInfo
) -> Classification | None:
    """6. A deleted article, or a 款 or 项 beyond the article's."""
    paragraph, item = cited.paragraph, cited.item
    if article.deleted:
        facts = cited.facts(in_force, **cited.upcoming_facts)
        return cited.held_to(in_force, "deprecated", "article_deleted", facts, article)
    if paragraph is not None and paragraph > article.paragraph_count:
        facts = cited.facts(in_force, paragraph_count=article.paragraph_count)
        return cited.held_to(in_force, "unverified", "paragraph_not_found", facts, article)
    if item is None:
        return None
    if paragraph is not None:
        available = article.item_counts[paragraph - 1] if article.item_counts else 0
    else:
        available = max(article.item_counts, default=0)
    if item > available:
        facts = cited.facts(in_force, item_count=available)
        return cited.held_to(in_force, "unverified", "item_not_found", facts, article)
    return None


def _corresponding(
    repo: StatuteRepository,
    law: LawInfo,
    cited: VersionInfo,
    in_force: VersionInfo | None,
    number: int,
    suffix: str | None,
    as_of: date,
) -> ArticleRef | None:
    """The article of the version in force that corresponds to an article of an older version."""
    if in_force is None:
        return None
    for successor in repo.successors(law.id, number, suffix, cited.id):
        if successor.to_version_id in (in_force.id, None) and successor.to_law_id == law.id:
            return _article_ref(
                repo, law, in_force, successor.to_number, successor.to_suffix, successor
            )
    if _exists_in(repo, in_force, number, suffix):
        return _article_ref(repo, law, in_force, number, suffix)
    return None
