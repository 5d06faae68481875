"""Does the article say what the answer says: the quote check with `found_in`, and numbers.

Where a quote does not match its article, it is looked for (best first, `quotes.best_location`):
1. the same article in the law's other versions (`other_version`: 条号漂移 or an amended text);
2. the other articles of the same version (`same_law`: the answer gave the wrong number);
3. the articles of the other laws cited in the same answer (`elsewhere`).
The whole database is not searched: it would cost seconds per quote, and a quote from a law
the answer does not cite is rare in real answers.
"""

from __future__ import annotations

from collections.abc import Iterable

from legaldb import StatuteRepository
from legaldb.models import LawInfo, VersionInfo
from verifier.models import FoundIn, NumberConflict, QuoteCheck
from verifier.numbers import number_conflicts
from verifier.quotes import best_location, compare_quote

NO_QUOTE = QuoteCheck("none")
FOUND_IN_LIMIT = 3


def _candidates(
    repo: StatuteRepository,
    law: LawInfo,
    version: VersionInfo,
    number: int,
    suffix: str | None,
    other_laws: Iterable[tuple[LawInfo, VersionInfo]],
) -> list[tuple[FoundIn, str]]:
    """(where, text) pairs to look for a quote in, nearest first."""
    found: list[tuple[FoundIn, str]] = []
    for other in repo.versions(law.id):
        if other.id == version.id or not other.has_text:
            continue
        article = repo.article_text(other.id, number, suffix)
        if article is not None:
            found.append(
                (FoundIn(law.name, article.info.label, other.label, 0.0, "other_version"),
                 article.text)
            )  # fmt: skip
    for article in repo.articles_text(version.id):
        if (article.info.number, article.info.suffix) != (number, suffix or None):
            found.append(
                (FoundIn(law.name, article.info.label, version.label, 0.0, "same_law"),
                 article.text)
            )  # fmt: skip
    for other_law, other_version in other_laws:
        if other_law.id == law.id:
            continue
        for article in repo.articles_text(other_version.id):
            found.append(
                (FoundIn(other_law.name, article.info.label, other_version.label, 0.0,
                         "elsewhere"), article.text)
            )  # fmt: skip
    return found


def check_quote(
    repo: StatuteRepository,
    quote: str | None,
    article_text: str | None,
    law: LawInfo | None,
    version: VersionInfo | None,
    number: int,
    suffix: str | None,
    other_laws: Iterable[tuple[LawInfo, VersionInfo]] = (),
) -> QuoteCheck:
    """Compare a quote with its article's text; on partial/mismatch, say where it really is."""
    if not quote or not quote.strip() or article_text is None:
        return NO_QUOTE
    score = compare_quote(quote, article_text)
    if score.verdict == "match" or law is None or version is None:
        return QuoteCheck(score.verdict, round(score.score, 4))
    located = best_location(
        quote, _candidates(repo, law, version, number, suffix, other_laws), limit=FOUND_IN_LIMIT
    )
    found_in = tuple(
        FoundIn(where.law, where.article_label, where.version_label, round(found.score, 4),
                where.where)
        for where, found in located
    )  # fmt: skip
    return QuoteCheck(score.verdict, round(score.score, 4), found_in)


def check_numbers(
    claim: str | None, quote: str | None, article_text: str | None
) -> tuple[NumberConflict, ...]:
    """Numbers in the claim sentence (and the quote) that the article contradicts."""
    if article_text is None:
        return ()
    stated = " ".join(part for part in (quote, claim) if part)
    if not stated:
        return ()
    return tuple(number_conflicts(stated, article_text))
