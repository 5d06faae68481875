"""The verifier's verbs: check an answer's text, or citations already extracted."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from datetime import date, datetime
from weakref import WeakKeyDictionary

from extractor import Citation, extract
from legaldb import StatuteRepository
from legaldb.models import LawInfo, VersionInfo
from verifier.classify import Classification, classify
from verifier.content import NO_QUOTE, check_numbers, check_quote
from verifier.errors import InputError
from verifier.lexicon import lexicon_of
from verifier.memo import recall
from verifier.models import (
    NO_SUPPORT,
    STATUSES,
    CheckResult,
    QuoteCheck,
    Resolved,
    Summary,
    Verdict,
    new_recital,
    new_resolved,
    new_summary,
    new_verdict,
)
from verifier.support import judge_support

CLASSIFIED_PER_REPOSITORY = 8192  # memoised classifications (a few hundred bytes each)

# What a citation is held to: its classification, the article's text and the resolved article
# with that text. A pure function of the cited provision, the date and the repository, and the
# same provisions recur (2,715 distinct ones among the 9,642 citations of the flzx answers).
_Held = tuple[Classification, str | None, Resolved | None]
_HELD: WeakKeyDictionary[StatuteRepository, OrderedDict[tuple, _Held]] = WeakKeyDictionary()


def today(timezone: str) -> date:
    """Today's date in the given timezone (the deployment's LEXGATE_TIMEZONE, passed in)."""
    # imported here: zoneinfo brings sysconfig's tables, which a check given --as-of never needs
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):  # ValueError: not a key at all ("../x", "")
        raise InputError(
            f"timezone: no time zone named {timezone!r} (LEXGATE_TIMEZONE takes an IANA name "
            "such as Asia/Shanghai)"
        ) from None
    return datetime.now(zone).date()


def check(text: str, repo: StatuteRepository, as_of: date) -> CheckResult:
    """Extract every citation of an answer and verify each one as of a date."""
    citations = extract(text, lexicon_of(repo))
    return check_citations(citations, repo, as_of)


def _with_text(classification: Classification, repo: StatuteRepository) -> str | None:
    version, article = classification.version, classification.article
    if version is None or article is None or not version.has_text:
        return None
    found = repo.article_text(version.id, article.number, article.suffix)
    return found.text if found else None


def _held(repo: StatuteRepository, citation: Citation, as_of: date) -> _Held:
    """The citation's classification on as_of, with the text of the article it is held to and
    the resolved article carrying that text (memoised per repository, least recently used out)."""
    c = citation
    law_name = c.law or c.law_as_written

    def classified() -> _Held:
        k = classify(repo, law_name, c.article, c.article_suffix, c.paragraph, c.item, as_of,
                     c.version_hint)  # fmt: skip
        return _hold(repo, k)

    key = (law_name, c.article, c.article_suffix, c.paragraph, c.item, as_of, c.version_hint)
    return recall(_HELD, repo, key, CLASSIFIED_PER_REPOSITORY, classified)


def _hold(repo: StatuteRepository, k: Classification) -> _Held:
    article_text = _with_text(k, repo)
    resolved = k.resolved
    if resolved is not None and article_text is not None:
        resolved = new_resolved(
            resolved.law, resolved.version_label, resolved.effective_from,
            resolved.effective_to, resolved.article_label, article_text,
        )  # fmt: skip
    return k, article_text, resolved


def check_citations(
    citations: Sequence[Citation], repo: StatuteRepository, as_of: date, *, content: bool = True
) -> CheckResult:
    """Verify already-extracted citations; `content=False` skips quote and number checks."""
    held = [_held(repo, c, as_of) for c in citations]
    cited_laws: dict[int, tuple[LawInfo, VersionInfo]] = {
        k.law.id: (k.law, k.version)
        for k, _, _ in held
        if k.law is not None and k.version is not None and k.version.has_text
    }
    verdicts = []
    for citation, (k, article_text, resolved) in zip(citations, held, strict=True):
        quote_check: QuoteCheck = NO_QUOTE
        conflicts: tuple = ()
        support = NO_SUPPORT
        if content:
            quote = citation.quote.text if citation.quote else None
            number = k.article.number if k.article else citation.article
            suffix = k.article.suffix if k.article else citation.article_suffix
            recital = new_recital(quote, article_text, k.law, k.version, number, suffix)
            quote_check = check_quote(
                repo,
                recital,
                [
                    pair
                    for law_id, pair in cited_laws.items()
                    if k.law is None or law_id != k.law.id
                ],
            )
            claim = citation.claim.text if citation.claim else None
            conflicts = check_numbers(claim, quote, article_text)
            support = judge_support(repo, recital, quote_check)
        status, reason, facts = k.status, k.reason, k.facts
        if (
            status == "verified"
            and quote_check.verdict != "match"
            and quote_check.found_in
            and quote_check.found_in[0].where == "other_version"
            and quote_check.found_in[0].score >= 0.8
        ):
            # The answer recites the article as an earlier (or later) version had it: the
            # facts name that version next to the one in force.
            status, reason = "deprecated", "superseded"
            facts = replace(facts, recited_version=quote_check.found_in[0].version_label,
                            recited_article=quote_check.found_in[0].article_label)  # fmt: skip
        verdicts.append(
            new_verdict(citation, status, reason, facts, resolved, quote_check, conflicts, support)
        )
    return CheckResult(as_of.isoformat(), tuple(verdicts), summarize(verdicts))


def summarize(verdicts: Sequence[Verdict]) -> Summary:
    """Counts per status."""
    counts = dict.fromkeys(STATUSES, 0)
    for verdict in verdicts:
        counts[verdict.status] += 1
    return new_summary(
        len(verdicts),
        counts["verified"],
        counts["deprecated"],
        counts["notYetEffective"],
        counts["unverified"],
    )
