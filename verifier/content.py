"""Does the article say what the answer says: the quote check with `found_in`, and numbers.

Where a quote does not match its article, it is looked for, and the best places (score >= 0.6,
at most three) are reported as `found_in`:
1. the same article in the law's other versions (`other_version`: 条号漂移 or an amended text);
2. the other articles of the same version (`same_law`: the answer gave the wrong number);
3. the articles of the other laws cited in the same answer (`elsewhere`).
The whole database is not searched: a quote from a law the answer does not cite is rare in
real answers, and each law version searched costs an index build (about 0.1 s, then cached).
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeGuard
from weakref import WeakKeyDictionary

from legaldb import StatuteRepository
from legaldb.models import LawInfo, VersionInfo
from textnorm.marshalled import read_marshalled_parts, write_marshalled_parts
from verifier.memo import recall
from verifier.models import (
    FoundIn,
    NumberConflict,
    QuoteCheck,
    Recital,
    new_found_in,
    new_quote_check,
)
from verifier.numbers import number_conflicts
from verifier.quotes import Comparison, QuoteIndex, compared, quote_similarity

NO_QUOTE = QuoteCheck("none")
FOUND_IN_LIMIT = 3
LOCATION_MIN_SCORE = 0.6
STRONG_LOCATION = 0.8  # a match elsewhere in the same law ends the search
INDEXES_PER_REPOSITORY = 256
# Raise when QuoteIndex.to_parts changes, or what it keeps does (verifier.quotes._prepare and
# normalize_for_compare make the normalised sentences it keeps).
QUOTE_INDEX_FORMAT = 8
QUOTE_INDEX_PARTS = 11  # the byte strings of QuoteIndex.to_parts
LOCATIONS_PER_REPOSITORY = 8192  # memoised quote locations (under 2 KB each)

ArticleKey = tuple[int, str | None]
Located = tuple[tuple[tuple[ArticleKey, str], float], ...]
_INDEXES: WeakKeyDictionary[StatuteRepository, dict[int, QuoteIndex[tuple[ArticleKey, str]]]] = (
    WeakKeyDictionary()
)
_LOCATED: WeakKeyDictionary[StatuteRepository, OrderedDict[tuple[int, str, int], Located]] = (
    WeakKeyDictionary()
)


def version_index(repo: StatuteRepository, version_id: int) -> QuoteIndex[tuple[ArticleKey, str]]:
    """The quote index over one version's articles, built once per repository and version;
    kept on disk beside the statute snapshot (repo.derived_dir) for the next process."""
    indexes = _INDEXES.setdefault(repo, {})
    index = indexes.get(version_id)
    if index is None:
        if len(indexes) >= INDEXES_PER_REPOSITORY:
            indexes.clear()
        index = indexes[version_id] = _kept_index(repo, version_id)
    return index


def keep_version_index(repo: StatuteRepository, version_id: int) -> bool:
    """Make the version's quote index file in repo.derived_dir, as its first check would,
    unless it is there in the current format; True when made (`lexgate db prepare`)."""
    path = _index_path(repo, version_id)
    if path is None or _read_index(path) is not None:
        return False
    _built_index(repo, version_id, path)
    return True


def _kept_index(repo: StatuteRepository, version_id: int) -> QuoteIndex[tuple[ArticleKey, str]]:
    path = _index_path(repo, version_id)
    kept = None if path is None else _read_index(path)
    if kept is not None:
        (_, keys, plain), parts = kept
        return QuoteIndex.from_parts((_unpacked_keys(keys), *plain), parts)
    return _built_index(repo, version_id, path)


def _read_index(path: Path) -> tuple[tuple[Any, ...], list[memoryview]] | None:
    """A quote index file's value and parts when it is in the current format (None when
    missing, corrupt, truncated or old)."""
    kept = read_marshalled_parts(path)
    if kept is None or not _current_index(kept[0]) or len(kept[1]) != QUOTE_INDEX_PARTS:
        return None
    return kept[0], kept[1]


def _index_path(repo: StatuteRepository, version_id: int) -> Path | None:
    return None if repo.derived_dir is None else repo.derived_dir / f"quotes-{version_id}.marshal"


def _current_index(kept: object) -> TypeGuard[tuple[Any, ...]]:
    """Whether a quote index file's value is in the current format (not missing, corrupt or old)."""
    return isinstance(kept, tuple) and bool(kept) and kept[0] == QUOTE_INDEX_FORMAT


def _built_index(
    repo: StatuteRepository, version_id: int, path: Path | None
) -> QuoteIndex[tuple[ArticleKey, str]]:
    """The version's quote index built from its articles, and kept in path when given."""
    index = QuoteIndex(
        (((a.info.number, a.info.suffix), a.info.label), a.text)
        for a in repo.articles_text(version_id)
    )
    if path is not None:
        (keys, *plain), parts = index.to_parts()
        write_marshalled_parts(path, (QUOTE_INDEX_FORMAT, _packed_keys(keys), tuple(plain)), parts)
    return index


def _packed_keys(keys: list[tuple[ArticleKey, str]]) -> Any:
    """An index's keys as kept: their numbers, suffixes and labels apart (the labels one text,
    a line each), which `_unpacked_keys` makes again at a fifth of what unmarshalling each
    key's two tuples and label cost; the list itself should a label hold a line break."""
    if any("\n" in label for _, label in keys):
        return keys
    return (
        array("q", [number for (number, _), _ in keys]).tobytes(),
        tuple(suffix for (_, suffix), _ in keys),
        "\n".join(label for _, label in keys),
    )


def _unpacked_keys(packed: Any) -> list[tuple[ArticleKey, str]]:
    """The keys `_packed_keys` kept."""
    if isinstance(packed, list):
        return packed
    numbers, suffixes, labels = packed
    numbered = zip(array("q", numbers).tolist(), suffixes, strict=True)
    return list(zip(numbered, labels.split("\n") if numbers else (), strict=True))


def located(repo: StatuteRepository, version_id: int, quote: str, limit: int) -> Located:
    """Where in one version the quote is, with the score there (`QuoteIndex.locate_scores`),
    memoised per repository (least recently used out): the same recitations recur across
    answers and reruns, and locating one is the costliest step of a check
    (docs/performance.md)."""
    return recall(
        _LOCATED,
        repo,
        (version_id, quote, limit),
        LOCATIONS_PER_REPOSITORY,
        lambda: tuple(version_index(repo, version_id).locate_scores(quote, limit=limit)),
    )


def _locate(
    repo: StatuteRepository,
    recital: Recital,
    cited_score: Comparison,
    law: LawInfo,
    version: VersionInfo,
    other_laws: Iterable[tuple[LawInfo, VersionInfo]],
) -> list[FoundIn]:
    found: list[FoundIn] = []
    quote, number, suffix = recital.quote or "", recital.number, recital.suffix
    for other in repo.versions(law.id):
        if other.id == version.id or not other.has_text:
            continue
        article = repo.article_text(other.id, number, suffix)
        if article is not None:
            # An article an amendment left as it was scores what the cited one scored.
            similarity = (
                cited_score.score
                if article.text == recital.article_text
                else similarity_memoised(quote, article.text)
            )
            if similarity >= LOCATION_MIN_SCORE:
                found.append(
                    new_found_in(law.name, article.info.label, other.label, round(similarity, 4),
                                 "other_version")
                )  # fmt: skip
    cited = {(number, suffix or None)}
    for (key, label), score in located(repo, version.id, quote, FOUND_IN_LIMIT + 1):
        if key not in cited:
            found.append(new_found_in(law.name, label, version.label, score, "same_law"))
    if any(where.score >= STRONG_LOCATION for where in found):
        other_laws = ()  # found in the law itself: no need to look in the others
    for other_law, other_version in other_laws:
        for (_, label), score in located(repo, other_version.id, quote, FOUND_IN_LIMIT):
            found.append(
                new_found_in(other_law.name, label, other_version.label, score, "elsewhere")
            )
    found.sort(key=lambda where: where.score, reverse=True)
    return found[:FOUND_IN_LIMIT]


def check_quote(
    repo: StatuteRepository,
    recital: Recital,
    other_laws: Iterable[tuple[LawInfo, VersionInfo]] = (),
) -> QuoteCheck:
    """Compare a quote with its article's text; on partial/mismatch, say where it really is."""
    quote, article_text = recital.quote, recital.article_text
    if not quote or not quote.strip() or article_text is None:
        return NO_QUOTE
    score = compare_memoised(quote, article_text)
    law, version = recital.law, recital.version
    if score.verdict == "match" or law is None or version is None:
        return new_quote_check(score.verdict, round(score.score, 4))
    found_in = _locate(repo, recital, score, law, version, other_laws)
    return new_quote_check(score.verdict, round(score.score, 4), tuple(found_in))


@lru_cache(maxsize=8192)
def compare_memoised(quote: str, article_text: str) -> Comparison:
    """compare_quote (its Comparison), memoised: real answers repeat the same recitations."""
    return compared(quote, article_text)


@lru_cache(maxsize=8192)
def similarity_memoised(quote: str, article_text: str) -> float:
    """The quote's score against another version's article when it may be a location
    (quote_similarity at LOCATION_MIN_SCORE), memoised like compare_memoised."""
    return quote_similarity(quote, article_text, LOCATION_MIN_SCORE)


def check_numbers(
    claim: str | None, quote: str | None, article_text: str | None
) -> tuple[NumberConflict, ...]:
    """Numbers in the claim sentence and the quote that the article contradicts (no repeats)."""
    if article_text is None:
        return ()
    stated = claim or ""
    if quote and quote not in stated:
        stated = f"{stated}\n{quote}"
    if not stated:
        return ()
    seen: set[tuple[str, float]] = set()
    conflicts = []
    for conflict in number_conflicts(stated, article_text):
        key = (conflict.kind, conflict.claim_value)
        if key not in seen:
            seen.add(key)
            conflicts.append(conflict)
    return tuple(conflicts)
