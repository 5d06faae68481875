"""Align the articles of two consecutive versions of a law by their texts (rapidfuzz).

For every live article of the old version, the live article of the new version whose text is
most similar (rapidfuzz `fuzz.ratio`, the normalised Indel similarity, here on 0..1, after NFKC
and removing whitespace). Pairs below ALIGN_THRESHOLD = 0.6 are dropped. Measured on the
bundled corpus: two different articles of one text (公司法 2023) score 0.15 at the median and
0.34 at the 99th percentile, while sampled aligned pairs between 0.6 and 0.7 are genuine
rewrites (an article that gained or lost a clause). Identical texts are paired first by
hashing, so an amendment that touches a few articles compares only those few.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from rapidfuzz import fuzz, process

from legaldb.models import AlignedPair, ParsedArticle

ALIGN_THRESHOLD = 0.6
_SPACE = re.compile(r"\s+")


@lru_cache(maxsize=4096)  # a version's texts are keyed again as the next pair's old ones
def _key(text: str) -> str:
    return _SPACE.sub("", unicodedata.normalize("NFKC", text))


def align_versions(
    old: Sequence[ParsedArticle],
    new: Sequence[ParsedArticle],
    threshold: float = ALIGN_THRESHOLD,
) -> list[AlignedPair]:
    """For each live old article, the most similar live new article (>= threshold)."""
    old_live = [a for a in old if not a.deleted]
    new_live = [a for a in new if not a.deleted]
    if not old_live or not new_live:
        return []
    new_keys = [_key(a.text) for a in new_live]
    by_text: dict[str, list[int]] = {}
    for index, key in enumerate(new_keys):
        by_text.setdefault(key, []).append(index)

    pairs: dict[int, AlignedPair] = {}
    unmatched: list[int] = []
    old_keys = [_key(a.text) for a in old_live]
    for index, key in enumerate(old_keys):
        same = by_text.get(key)
        if not same:
            unmatched.append(index)
            continue
        article = old_live[index]
        best = min(same, key=lambda j: abs(new_live[j].number - article.number))
        pairs[index] = _pair(article, new_live[best], 1.0, changed=False)

    cutoff = threshold * 100
    for index in unmatched:
        best_match = process.extractOne(
            old_keys[index], new_keys, scorer=fuzz.ratio, score_cutoff=cutoff
        )
        if best_match is not None:
            _, score, column = best_match
            pairs[index] = _pair(old_live[index], new_live[column], score / 100, changed=True)
    return [pairs[i] for i in sorted(pairs)]


def _pair(old: ParsedArticle, new: ParsedArticle, similarity: float, changed: bool) -> AlignedPair:
    return AlignedPair(
        old_number=old.number,
        old_suffix=old.suffix,
        new_number=new.number,
        new_suffix=new.suffix,
        similarity=round(similarity, 4),
        changed=changed,
    )
