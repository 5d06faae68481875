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
   is outside the data -> unverified / version_not_in_data.
5. The article is missing from the version in force -> notYetEffective when only a version not
   yet in force has it, else unverified / article_not_found (facts: the article count).
6. A deleted article -> deprecated / article_deleted; a 款 or 项 beyond the article's ->
   unverified / paragraph_not_found or item_not_found.
7. Otherwise verified / in_force, with a newer promulgated version not yet in force as a warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from legaldb import StatuteRepository
from legaldb.models import ArticleInfo, LawInfo, Successor, VersionInfo
from textnorm import article_label
from verifier.models import ArticleRef, Facts, Reason, Resolved, Status

_YEAR = re.compile(r"(\d{4})")
AMENDED_LABELS = ("修正", "修订")


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


def _iso(day: date | None) -> str | None:
    return day.isoformat() if day else None


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
    repo: StatuteRepository, law: LawInfo, version: VersionInfo | None, number: int,
    suffix: str | None, successor: Successor | None = None,
) -> ArticleRef:  # fmt: skip
    text = None
    if version is not None and version.has_text:
        found = repo.article_text(version.id, number, suffix)
        text = found.text if found else None
    return ArticleRef(
        law=law.name,
        article=number,
        article_suffix=suffix,
        label=article_label(number, suffix),
        version_label=version.label if version else None,
        text=text,
        kind=successor.kind if successor else None,
        similarity=successor.similarity if successor else None,
        changed=successor.changed if successor else False,
        note=getattr(successor, "note", None) if successor else None,
    )


def successor_refs(
    repo: StatuteRepository, law: LawInfo, number: int, suffix: str | None,
    version: VersionInfo | None, as_of: date,
) -> tuple[ArticleRef, ...]:  # fmt: skip
    """The articles that took over this one, each with its text as in force on as_of."""
    refs = []
    for successor in repo.successors(law.id, number, suffix, version.id if version else None):
        to_law = repo.law(successor.to_law_id)
        if to_law is None:
            continue
        to_version = repo.version_in_force(to_law.id, as_of) or repo.latest_version(to_law.id)
        refs.append(
            _article_ref(repo, to_law, to_version, successor.to_number, successor.to_suffix,
                         successor)
        )  # fmt: skip
    return tuple(refs)


def _exists_in(
    repo: StatuteRepository, version: VersionInfo, number: int, suffix: str | None
) -> bool:
    """Article present in a version; for text-less versions, within the known article count
    (a statute known only from a repeal clause or the census has none: not contradicted)."""
    if version.has_text:
        return repo.article(version.id, number, suffix) is not None
    return version.article_count == 0 or 1 <= number <= version.article_count


def _resolved(law: LawInfo, version: VersionInfo | None, number: int, suffix: str | None,
              text: str | None) -> Resolved:  # fmt: skip
    return Resolved(
        law=law.name,
        version_label=version.label if version else None,
        effective_from=_iso(version.effective_from) if version else None,
        effective_to=_iso(version.effective_to) if version else None,
        article_label=article_label(number, suffix),
        article_text=text,
    )


def _version_facts(law: LawInfo, version: VersionInfo, **extra: object) -> Facts:
    return Facts(
        law=law.name,
        level=law.level,
        article_count=version.article_count or None,
        version_label=version.label,
        effective_from=_iso(version.effective_from),
        effective_to=_iso(version.effective_to),
        **extra,  # type: ignore[arg-type]
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
    """Status, reason and facts of one cited provision on as_of."""
    law = repo.resolve(law_name) if law_name else None
    if law is None:
        level = repo.guess_level(law_name) if law_name else None
        return Classification(
            "unverified",
            "law_not_found",
            Facts(law=law_name, level=level,
                  level_covered=repo.covers_completely(level) if level else False),
            None,
        )  # fmt: skip
    versions = repo.versions(law.id)
    in_force = repo.version_in_force(law.id, as_of)
    repeal = repo.repeal(law.id)

    # 2. Repealed (on a known date, or on a date no source gives).
    if repeal is not None and (
        repeal.repealed_on is None or (as_of >= repeal.repealed_on and in_force is None)
    ):
        last = versions[-1] if versions else None
        successor = repo.law(repeal.successor_law_id) if repeal.successor_law_id else None
        repeal_facts = {
            "repealed_on": _iso(repeal.repealed_on),
            "repealed_by": repeal.repealed_by,
            "repeal_note": repeal.note,
            "successor_law": successor.name if successor else None,
        }
        if last is not None and not _exists_in(repo, last, number, suffix):
            return Classification(
                "unverified", "article_not_found", _version_facts(law, last, **repeal_facts),
                _resolved(law, last, number, suffix, None), law, last,
            )  # fmt: skip
        facts = _version_facts(
            law, last, successors=successor_refs(repo, law, number, suffix, None, as_of),
            **repeal_facts,
        ) if last else Facts(law=law.name, level=law.level, **repeal_facts)  # type: ignore[arg-type]  # fmt: skip
        return Classification(
            "deprecated", "repealed", facts, _resolved(law, last, number, suffix, None),
            law, last, repo.article(last.id, number, suffix) if last else None,
        )  # fmt: skip

    upcoming = next(
        (v for v in versions if v.effective_from is not None and v.effective_from > as_of), None
    )
    upcoming_facts = (
        {
            "upcoming_version": upcoming.label,
            "upcoming_effective_from": _iso(upcoming.effective_from),
        }
        if upcoming is not None
        else {}
    )

    # 3. A named version other than the one in force.
    cited = hinted_version(versions, version_hint)
    if cited is not None and (in_force is None or cited.id != in_force.id):
        if not _exists_in(repo, cited, number, suffix):
            return Classification(
                "unverified", "article_not_found", _version_facts(law, cited),
                _resolved(law, cited, number, suffix, None), law, cited,
            )  # fmt: skip
        if cited.effective_from is not None and cited.effective_from > as_of:
            return Classification(
                "notYetEffective", "not_yet_effective", _version_facts(law, cited),
                _resolved(law, cited, number, suffix, None), law, cited,
                repo.article(cited.id, number, suffix),
            )  # fmt: skip
        corresponding = _corresponding(repo, law, cited, in_force, number, suffix, as_of)
        return Classification(
            "deprecated", "superseded",
            _version_facts(law, cited, corresponding=corresponding, **upcoming_facts),
            _resolved(law, cited, number, suffix, None), law, cited,
            repo.article(cited.id, number, suffix),
        )  # fmt: skip

    # 4. Nothing in force yet (or dates unknown).
    if in_force is None:
        first_future = upcoming
        if (
            first_future is not None
            and first_future is versions[0]
            and first_future.label.endswith(AMENDED_LABELS)
        ):
            # The earliest text in the data amends an older one the data lacks (刑法 2023年修正
            # before 2024-03-01): the text in force on as_of is outside the data.
            return Classification(
                "unverified", "version_not_in_data", _version_facts(law, first_future),
                _resolved(law, first_future, number, suffix, None), law, first_future,
                repo.article(first_future.id, number, suffix),
            )  # fmt: skip
        if first_future is not None:
            exists = _exists_in(repo, first_future, number, suffix)
            return Classification(
                "notYetEffective" if exists else "unverified",
                "not_yet_effective" if exists else "article_not_found",
                _version_facts(law, first_future),
                _resolved(law, first_future, number, suffix, None), law, first_future,
                repo.article(first_future.id, number, suffix),
            )  # fmt: skip
        last = versions[-1] if versions else None
        return Classification(
            "unverified", "effective_date_unknown",
            _version_facts(law, last) if last else Facts(law=law.name, level=law.level),
            _resolved(law, last, number, suffix, None), law, last,
        )  # fmt: skip

    # 5. The article in the version in force.
    article = repo.article(in_force.id, number, suffix) if in_force.has_text else None
    if article is None and not (
        not in_force.has_text and _exists_in(repo, in_force, number, suffix)
    ):
        if upcoming is not None and _exists_in(repo, upcoming, number, suffix):
            return Classification(
                "notYetEffective", "not_yet_effective", _version_facts(law, upcoming),
                _resolved(law, upcoming, number, suffix, None), law, upcoming,
                repo.article(upcoming.id, number, suffix),
            )  # fmt: skip
        return Classification(
            "unverified", "article_not_found", _version_facts(law, in_force, **upcoming_facts),
            _resolved(law, in_force, number, suffix, None), law, in_force,
        )  # fmt: skip
    resolved = _resolved(law, in_force, number, suffix, None)

    # 6. Deleted, 款, 项.
    if article is not None and article.deleted:
        return Classification(
            "deprecated", "article_deleted", _version_facts(law, in_force, **upcoming_facts),
            resolved, law, in_force, article,
        )  # fmt: skip
    if article is not None and paragraph is not None and paragraph > article.paragraph_count:
        return Classification(
            "unverified", "paragraph_not_found",
            _version_facts(law, in_force, paragraph_count=article.paragraph_count),
            resolved, law, in_force, article,
        )  # fmt: skip
    if article is not None and item is not None:
        if paragraph is not None:
            available = article.item_counts[paragraph - 1] if article.item_counts else 0
        else:
            available = max(article.item_counts, default=0)
        if item > available:
            return Classification(
                "unverified", "item_not_found",
                _version_facts(law, in_force, item_count=available),
                resolved, law, in_force, article,
            )  # fmt: skip

    # 7. Verified.
    return Classification(
        "verified", "in_force", _version_facts(law, in_force, **upcoming_facts),
        resolved, law, in_force, article,
    )  # fmt: skip


def _corresponding(
    repo: StatuteRepository, law: LawInfo, cited: VersionInfo, in_force: VersionInfo | None,
    number: int, suffix: str | None, as_of: date,
) -> ArticleRef | None:  # fmt: skip
    """The article of the version in force that corresponds to an article of an older version."""
    if in_force is None:
        return None
    for successor in repo.successors(law.id, number, suffix, cited.id):
        if successor.to_version_id in (in_force.id, None) and successor.to_law_id == law.id:
            return _article_ref(repo, law, in_force, successor.to_number, successor.to_suffix,
                                successor)  # fmt: skip
    if _exists_in(repo, in_force, number, suffix):
        return _article_ref(repo, law, in_force, number, suffix)
    return None
