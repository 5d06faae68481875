"""The quote check: does a recited text say what the article says, and where is it really from.

A quote is compared with the best-matching run of whole consecutive sentences of the article
(Indel similarity of the normalised texts), so a quote of one 款, of a paragraph with its
items, or of the whole article can score 1.0, while a quote cut off mid-sentence, one padded
with invented text and one of another article all score low. Thresholds (see docs/verifier.md
for the study behind them):

- MATCH_SCORE 0.80: a match. On the development data (quote_dev, and all 1,717 labelled
  recitations of recite_dev) every faithful recitation scores 1.0 and no other text above
  0.75; recitations with 5% of their characters changed still score >= 0.85.
- PARTIAL_SUPPORT 0.50 and PARTIAL_SCORE 0.40: below MATCH_SCORE, the verdict is partial when
  at least half of the quote (by characters, clause by clause) is found in the article and the
  score is at least 0.40: a real fragment cut short, an old version's wording, the article
  padded with a little other text. Otherwise mismatch (the score floor keeps a long invented
  text that only shares stock phrases such as 处三年以下有期徒刑 from being partial; 95% of the
  development mismatches score below 0.40).
- CLAUSE_FOUND 0.80, CLAUSE_MIN_CHARS 4: a clause of the quote (split at 。；！？：， and line
  breaks; clauses under 4 characters are ignored) counts as found in the article when its best
  alignment with an article passage of its own length has at least this similarity.
- LOCATION_MIN_SCORE 0.60: `best_location` and `QuoteIndex.locate` report candidates scoring
  at least this: a text that shares most of its wording with the quote.
"""

from __future__ import annotations

import heapq
import math
import sys
from array import array
from bisect import bisect_left
from codecs import utf_32_le_decode, utf_32_le_encode
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, chain
from typing import Any, Generic, NamedTuple, TypeVar

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Indel, LCSseq

from verifier.models import QuoteScore, QuoteVerdict
from verifier.textnorm_quote import (
    normalize_for_compare,
    quote_variants,
    split_clauses,
    split_sentences,
)

MATCH_SCORE = 0.80
PARTIAL_SUPPORT = 0.50
PARTIAL_SCORE = 0.40
CLAUSE_FOUND = 0.80
LOCATION_MIN_SCORE = 0.60
CLAUSE_MIN_CHARS = 4
# Where a quote is from: only this many candidates, ranked by shared rare bigrams, are scored
# exactly; bigrams in more than PREFILTER_COMMON_SHARE of the candidates (and at least
# PREFILTER_COMMON_MIN of them: 应当, 规定 …) do not rank; a candidate whose length differs
# from the quote's by more than 2:1 has its rank multiplied by (2 * shorter / longer) **
# PREFILTER_LENGTH_EXPONENT.
PREFILTER_KEEP = 8
PREFILTER_COMMON_SHARE = 0.02
PREFILTER_COMMON_MIN = 20
PREFILTER_LENGTH_EXPONENT = 0.3
# A search told that only scores of at least S matter skips the runs of sentences that cannot
# score above S - FLOOR_MARGIN. The margin is far wider than rapidfuzz's imprecision at a cutoff
# (a score up to about 3e-8 above the cutoff it is given may come back as 0) and than rounding
# to 4 places, and a short decimal apart from every score of texts under some 20,000
# characters, so each run that can matter is scored as a search from 0 scores it and the result
# is the same.
FLOOR_MARGIN = 0.001
# A run of sentences sharing a subsequence of at most c characters with a quote of q characters
# scores at most 2c / (q + its length); a run whose bound is below the best score so far by more
# than this (far more than the rounding error of the bound and of rapidfuzz's score, about
# 1e-16) is not scored: it could not have scored above the best.
BOUND_MARGIN = 1e-9

K = TypeVar("K")


class _Span(NamedTuple):
    """A run of sentences and its score (a tuple: made for every search, and a frozen
    dataclass's __init__ sets each field through object.__setattr__)."""

    score: float
    first: int
    last: int
    length: int


# A span of the four values a run search gives, made as namedtuple's `_make` makes one (its
# __new__ is a Python function: a call of it cost as much as the rest of a short search).
_SpanMaker = Callable[[type[_Span], tuple[float, int, int, int]], _Span]
_new_span: _SpanMaker = tuple.__new__  # type: ignore[assignment]
_NO_SPAN = _Span(0.0, 0, -1, 0)  # no run: the score a search starts from
_INDEL, _LCS = Indel.normalized_similarity, LCSseq.similarity  # the run search's scorers


def _best_span(
    quote: str,
    article: _Runs,
    floor: float = 0.0,
    common: int = -1,
    similarity: Callable[..., float] = Indel.normalized_similarity,
    margin: float = BOUND_MARGIN,
) -> _Span:
    """The run of consecutive sentences of the article most similar to quote (normalised), the
    first of the best; only runs scoring above floor count (none: a span of score floor).
    common, when known, is the length of the longest common subsequence of the quote and the
    whole article: no run shares more with the quote."""
    found = _span_walk(
        similarity, LCSseq.similarity, quote, article.text, article.bounds, floor, common, margin
    )
    return _new_span(_Span, found)


def _python_best_span(
    similarity: Callable[..., float],
    lcs: Callable[[str, str], int],
    quote: str,
    text: str,
    bounds: tuple[int, ...],
    floor: float,
    common: int,
    margin: float,
) -> tuple[float, int, int, int]:
    """`_best_span`'s search of the runs of sentences of text (between the bounds) for the
    quote: (score, first, last, length). common < 0: not known, made by lcs (LCSseq's)."""
    size = len(quote)
    sentences = len(bounds) - 1
    if size and floor < 1.0:
        # Only a run equal to the quote scores 1.0, and the first of them is the one at the
        # first place the quote occurs between two sentence bounds.
        at = text.find(quote)
        while at >= 0:
            first = bisect_left(bounds, at)
            if bounds[first] == at:
                after = bisect_left(bounds, at + size, first)
                if after <= sentences and bounds[after] == at + size:
                    return 1.0, first, after - 1, size
            at = text.find(quote, at + 1)
    if common < 0:
        # With three sentences or more, the runs its bound spares cost more than the bound.
        # Through `_common_lengths` for LCSseq's: called directly, rapidfuzz built the table of
        # the longer text (most often the article, block by block) and cleared it, four times
        # the cost.
        if sentences <= 2:
            common = size
        elif lcs is LCSseq.similarity:
            common = _common_lengths(quote, [text])[0]
        else:
            common = lcs(quote, text)
    return _runs_walk(similarity, quote, text, bounds, floor, common, margin)


def _python_best_run(
    similarity: Callable[..., float],
    quote: str,
    text: str,
    bounds: tuple[int, ...],
    floor: float,
    common: int,
    margin: float,
) -> tuple[float, int, int, int]:
    """`_best_span`'s search of the runs of sentences (text from bounds[i] to bounds[j]) for
    the first best scoring above floor by `similarity` (Indel's): (score, first, last, length),
    (floor, 0, -1, 0) when none does. common bounds what any run shares with the quote; a run
    whose bound is below the best by more than margin is not scored (BOUND_MARGIN)."""
    size, sentences = len(quote), len(bounds) - 1
    best, best_first, best_last, best_length = floor, 0, -1, 0
    for first in range(sentences):
        start = bounds[first]
        for last in range(first, sentences):
            end = bounds[last + 1]
            length = end - start
            if length > size:
                if 2 * size / (length + size) <= best:
                    break  # longer runs only lower the bound further
            elif 2 * length / (length + size) <= best:
                continue
            if 2 * common / (length + size) <= best - margin:
                break  # and so are the longer runs, as their bound is lower still
            score = similarity(quote, text[start:end], score_cutoff=best)
            if score > best:
                best, best_first, best_last, best_length = score, first, last, length
    return best, best_first, best_last, best_length


def _support(quote: str, article: str) -> float:
    """Share of the quote's characters in clauses found in the article (normalised article)."""
    clauses = [normalize_for_compare(c) for c in split_clauses(quote)]
    clauses = [c for c in clauses if len(c) >= CLAUSE_MIN_CHARS]
    total = sum(len(c) for c in clauses)
    if not total or not article:
        return 0.0
    cutoff = 100 * CLAUSE_FOUND
    found = sum(
        len(c)
        for c in clauses
        # a clause the article holds word for word aligns at 100: no need to ask rapidfuzz
        if c in article or fuzz.partial_ratio(c, article, score_cutoff=cutoff) >= cutoff
    )
    return found / total


def _verdict(score: float, support: float) -> QuoteVerdict:
    if score >= MATCH_SCORE:
        return "match"
    return "partial" if support >= PARTIAL_SUPPORT and score >= PARTIAL_SCORE else "mismatch"


@dataclass(frozen=True, slots=True)
class _Runs:
    """What the search for the best run of sentences needs of an article."""

    text: str  # the normalised sentences joined
    bounds: tuple[int, ...]  # where each sentence starts in text, then len(text)


def _to_utf_32(text: str) -> bytes:
    """text.encode("utf-32-le", "surrogatepass"), through the codec's own function: str.encode
    and bytes.decode find a UTF-32-LE codec by name in the registry at every call (only UTF-8,
    UTF-16 and UTF-32 with a byte order mark are looked up in C), and its decoder is a Python
    function that calls `codecs.utf_32_le_decode`."""
    return utf_32_le_encode(text, "surrogatepass")[0]


def _cast(data: Any, form: str) -> Any:
    """The bytes-like data as a view of items of the array type code form (not copied): read
    as the array it stands for (typed Any: an index's arrays are arrays when built)."""
    return memoryview(data).cast(form)  # type: ignore[call-overload]


@dataclass(frozen=True, slots=True)
class _PackedTexts:
    """Texts packed in one string of UTF-32 bytes, each decoded when asked for: a kept index is
    read back without decoding the texts of the many candidates that no lookup scores."""

    data: bytes | memoryview
    # Where each text starts (in characters), then where the last ends.
    starts: array[int] | memoryview

    @classmethod
    def pack(cls, texts: list[str]) -> _PackedTexts:
        data = _to_utf_32("".join(texts))
        return cls(data, array("I", accumulate(map(len, texts), initial=0)))

    def __getitem__(self, index: int) -> str:
        at = self.starts
        return utf_32_le_decode(
            self.data[4 * at[index] : 4 * at[index + 1]], "surrogatepass", True
        )[0]

    def to_plain(self) -> tuple[bytes, bytes]:
        return bytes(self.data), self.starts.tobytes()

    @classmethod
    def from_plain(cls, plain: tuple[bytes, bytes]) -> _PackedTexts:
        return cls(plain[0], array("I", plain[1]))


@dataclass(frozen=True, slots=True)
class _PreparedArticle(_Runs):
    raw_sentences: tuple[str, ...]  # the sentences as written, one for each of bounds but the last


def _prepare(article_text: str) -> _PreparedArticle:
    """Split an article into sentences and normalise them (a sentence that normalises to
    nothing is left out)."""
    raw = split_sentences(article_text)
    normalised = list(map(normalize_for_compare, raw))
    if not all(normalised):
        kept = [(r, n) for r, n in zip(raw, normalised, strict=True) if n]
        raw, normalised = [r for r, _ in kept], [n for _, n in kept]
    return _PreparedArticle(
        text="".join(normalised),
        bounds=tuple(accumulate(map(len, normalised), initial=0)),
        raw_sentences=tuple(raw),
    )


# Once per article text (article texts are few and checked many times).
_prepare_article = lru_cache(maxsize=16384)(_prepare)


def _score(variants: Sequence[tuple[str, str]], article: _PreparedArticle) -> Comparison:
    """Score prepared quote variants (raw, normalised) against a prepared article."""
    best_variant, best = variants[0][0], _NO_SPAN
    text, bounds = article.text, article.bounds
    for raw, normalised in variants:
        # `_best_span(normalised, article)`, its search called here (a frame less per variant)
        span = _new_span(
            _Span, _span_walk(_INDEL, _LCS, normalised, text, bounds, 0.0, -1, BOUND_MARGIN)
        )
        if span.score > best.score:
            best_variant, best = raw, span
            if best.score == 1.0:
                break  # no variant scores higher
    return Comparison(best_variant, best, article)


class Comparison:
    """A quote compared with an article: `compare_quote`'s QuoteScore (`as_score`), with the
    clause support made only when it is first asked for. The verdict needs it only for a score
    between PARTIAL_SCORE and MATCH_SCORE, and the checks ask for a score or verdict far more
    often than for the support (509 of the 3,615 comparisons of the flzx batch need it)."""

    __slots__ = ("_article", "_span", "_support", "_variant", "matched", "score", "verdict")

    def __init__(self, best_variant: str, best: _Span, article: _PreparedArticle) -> None:
        self._variant, self._span, self._article = best_variant, best, article
        self._support: float | None = None
        raw = best.score
        if raw >= MATCH_SCORE:
            self.verdict: QuoteVerdict = "match"
        elif raw < PARTIAL_SCORE:
            self.verdict = "mismatch"
        else:
            self.verdict = _verdict(raw, self._clause_support())
        self.score: float = round(raw, 4)
        self.matched: str = "".join(article.raw_sentences[best.first : best.last + 1]).strip()

    def _clause_support(self) -> float:
        support = self._support
        if support is None:
            support = self._support = _support(self._variant, self._article.text)
        return support

    @property
    def support(self) -> float:
        """`QuoteScore.support`: the share of the quote found in the article, clause by clause."""
        return round(self._clause_support(), 4)

    def as_score(self) -> QuoteScore:
        """The comparison as `compare_quote` reports it."""
        text, best = self._article.text, self._span
        return QuoteScore(
            verdict=self.verdict,
            score=self.score,
            support=self.support,
            coverage=round(best.length / len(text), 4) if text else 0.0,
            matched=self.matched,
        )


def _scored(best_variant: str, best: _Span, article: _PreparedArticle) -> QuoteScore:
    """The score of the variant whose best run of sentences is `best`."""
    return Comparison(best_variant, best, article).as_score()


@lru_cache(maxsize=16384)
def _prepare_quote(quote: str) -> tuple[tuple[str, str], ...]:
    """The quote's variants (raw, normalised), memoised: a quote is compared with its article,
    located, and judged, each preparing it."""
    variants = [(v, normalize_for_compare(v)) for v in quote_variants(quote)]
    return tuple((raw, norm) for raw, norm in variants if norm) or ((quote, ""),)


def quote_keys(quote: str) -> tuple[str, ...]:
    """The normalised variants of the quote that compare_quote scores (memoised with them)."""
    return tuple(normalised for _, normalised in _prepare_quote(quote))


def compare_quote(quote: str, article_text: str) -> QuoteScore:
    """Compare a quoted recitation with an article's text; an empty side is a mismatch."""
    return compared(quote, article_text).as_score()


def compared(quote: str, article_text: str) -> Comparison:
    """`compare_quote` with the clause support made when asked for (`Comparison`)."""
    return _score(_prepare_quote(quote), _prepare_article(article_text))


def _floor(min_score: float) -> float:
    """Where a search that needs only scores of at least min_score may start (FLOOR_MARGIN)."""
    return max(0.0, min_score - FLOOR_MARGIN)


def quote_similarity(quote: str, article_text: str, min_score: float = 0.0) -> float:
    """`compare_quote(quote, article_text).score` whenever that is at least min_score, and a
    lower score otherwise: for a caller that needs only where a quote may be from, so runs of
    sentences that cannot reach min_score are not scored, nor the clause support."""
    article = _prepare_article(article_text)
    floor = _floor(min_score)
    best = 0.0
    text, bounds = article.text, article.bounds
    for _, normalised in _prepare_quote(quote):
        # `_best_span(normalised, article, floor).score`, its search called here
        score = _span_walk(_INDEL, _LCS, normalised, text, bounds, floor, -1, BOUND_MARGIN)[0]
        if score > best:
            best = score
            if best == 1.0:
                break  # no variant scores higher
    return round(best, 4)


class QuoteIndex(Generic[K]):
    """Candidate articles indexed by their character bigrams, to find where a quote is from.

    Build one per stable set of articles (a law version's articles) and keep it: building costs
    about as much as one linear scan, a lookup a small fraction of one. A lookup ranks the
    candidates by the idf-weighted share of bigrams shared with the quote (of the smaller of the
    two, so a one-款 quote finds its long article and a padded quote its short one; bigrams in
    more than a tenth of the candidates are ignored), then scores the best PREFILTER_KEEP
    exactly with `compare_quote`. The index keeps each candidate's normalised sentences, so a
    lookup in a kept index splits and normalises none of them.
    """

    def __init__(self, candidates: Iterable[tuple[K, str]]) -> None:
        self._keys: list[K] = []
        texts: list[str] = []
        self._lengths: list[int] = []
        # Each candidate's _Runs: its normalised sentences joined, and all their bounds in one
        # array (candidate i's from _bounds_at[i] to _bounds_at[i + 1]).
        runs_texts: list[str] = []
        self._bounds = array("I")
        self._bounds_at = array("I", [0])
        self._runs_made: dict[int, _Runs] = {}
        # Per bigram, the candidates holding it (`_Postings`, by the bigram's code, `_gram_code`),
        # each posting unpacked into _posting_lists[place] when a lookup first reads it. A kept
        # index is read back as byte strings and nothing else: a dict of its codes cost 860
        # instructions a bigram to make, for an index that most often serves a few lookups of
        # some 30 bigrams each, while probing the table from Python costs a few hundred a lookup.
        postings: dict[int, list[int]] = {}
        for key, text in candidates:
            normalised = normalize_for_compare(text)
            index = len(self._keys)
            self._keys.append(key)
            texts.append(text)
            self._lengths.append(len(normalised))
            for code in _gram_codes(normalised):
                postings.setdefault(code, []).append(index)
            runs = _prepare(text)
            runs_texts.append(runs.text)
            self._bounds.extend(runs.bounds)
            self._bounds_at.append(len(self._bounds))
        self._texts = _PackedTexts.pack(texts)
        self._runs_texts = _PackedTexts.pack(runs_texts)
        count = len(self._keys)
        common = _common_limit(count)
        self._unseen_idf = math.log(count + 1)
        kept = {g: p for g, p in postings.items() if len(p) <= common}
        self._idf = _idf_table(count)
        self._weights = [0.0] * count
        for posting in kept.values():
            idf = self._idf[len(posting)]
            for index in posting:
                self._weights[index] += idf
        self._postings = _Postings.build(postings, common)
        self._posting_lists: dict[int, list[int]] = {}
        # The keys' hashes, made and kept by the compiled coverage walk (_quote_postings.c).
        self._key_hashes: bytearray | None = None

    def __len__(self) -> int:
        return len(self._keys)

    def to_parts(self) -> tuple[tuple[Any, ...], list[bytes]]:
        """The built index as plain values (for `marshal`; keys must be plain too), its keys
        first, and byte strings (`textnorm.marshalled.write_marshalled_parts`)."""
        texts, starts = self._texts.to_plain()
        runs_texts, runs_starts = self._runs_texts.to_plain()
        codes, at, items, size = self._postings.to_plain()
        return (self._keys, size, self._unseen_idf), [
            texts, starts, runs_texts, runs_starts, codes, at, items, self._bounds.tobytes(),
            self._bounds_at.tobytes(), array("I", self._lengths).tobytes(),
            array("d", self._weights).tobytes(),
        ]  # fmt: skip

    @classmethod
    def from_parts(cls, plain: tuple[Any, ...], parts: Sequence[Any]) -> QuoteIndex[K]:
        """The index `to_parts` described, without building it again. The parts may be views
        of the bytes a file was read into (`read_marshalled_parts`): the arrays are read in
        place, not copied."""
        keys, size, unseen_idf = plain
        (texts, starts, runs_texts, runs_starts, codes, at, items, bounds, bounds_at, lengths,
         weights) = parts  # fmt: skip
        index = cls.__new__(cls)
        index._keys = keys
        index._texts = _PackedTexts(texts, _cast(starts, "I"))
        index._runs_texts = _PackedTexts(runs_texts, _cast(runs_starts, "I"))
        index._postings = _Postings(_cast(codes, "Q"), _cast(at, "I"), _cast(items, "I"), size)
        index._bounds = _cast(bounds, "I")
        index._bounds_at = _cast(bounds_at, "I")
        index._lengths = _cast(lengths, "I").tolist()
        index._weights = _cast(weights, "d").tolist()
        index._unseen_idf = unseen_idf
        index._idf = _idf_table(len(keys))
        index._runs_made = {}
        index._posting_lists = {}
        index._key_hashes = None
        return index

    def to_plain(self) -> tuple[Any, ...]:
        """The built index as plain values (`to_parts`, the byte strings a tuple)."""
        plain, parts = self.to_parts()
        return plain, tuple(parts)

    @classmethod
    def from_plain(cls, plain: tuple[Any, ...]) -> QuoteIndex[K]:
        """The index `to_plain` described, without building it again."""
        return cls.from_parts(plain[0], plain[1])

    def _runs(self, index: int) -> _Runs:
        """Candidate index's normalised sentences, as `_prepare` made them (made once)."""
        runs = self._runs_made.get(index)
        if runs is None:
            at = self._bounds_at
            runs = self._runs_made[index] = _Runs(
                self._runs_texts[index], tuple(self._bounds[at[index] : at[index + 1]])
            )
        return runs

    def _shortlist(self, quote: str) -> list[int]:
        """Indices of the PREFILTER_KEEP candidates ranked best by shared rare bigrams."""
        return _shortlist_walk(self, quote, PREFILTER_KEEP, PREFILTER_LENGTH_EXPONENT)

    def _shared_weights(self, codes: Iterable[int]) -> tuple[float, list[float], list[list[int]]]:
        """The idf weight of the bigrams (their codes), summed in their order (common ones
        ignored, one no candidate holds weighs the most); per candidate index the weight it
        shares with them, summed in the same order (0.0 for a candidate sharing none); and the
        postings read, in that order (the candidates sharing any)."""
        total = 0.0
        shared = [0.0] * len(self._keys)
        held: list[list[int]] = []
        lists = self._posting_lists
        postings = self._postings
        table, at, items, size = postings.codes, postings.at, postings.items, postings.size
        idfs, unseen = self._idf, self._unseen_idf
        for code in codes:
            # The table's probe (`_Postings.place`), inline: a call per bigram costs as much.
            place = code % size
            there = table[place]
            while there != code:
                if there == _NO_CODE:
                    total += unseen  # a bigram no candidate holds
                    break
                place += 1
                there = table[place]
            else:
                found = lists.get(place)
                if found is None:
                    found = lists[place] = items[at[place] : at[place + 1]].tolist()
                if not found:
                    continue  # a common bigram: no posting
                idf = idfs[len(found)]
                total += idf
                for index in found:
                    shared[index] += idf
                held.append(found)
        return total, shared, held

    def is_common(self, gram: str) -> bool:
        """A bigram in so many candidates that it tells none apart (应当, 规定 …)."""
        if len(gram) != 2:
            return False  # no bigram: a code no place holds
        # The table's probe (`_Postings.place`), inline: the support asks it of bigram after
        # bigram until enough are distinctive.
        postings = self._postings
        code, table = _pair_code(gram), postings.codes
        place = code % postings.size
        while (there := table[place]) != code:
            if there == _NO_CODE:
                return False
            place += 1
        at = postings.at
        return at[place] == at[place + 1]

    def coverage(self, grams: Iterable[str]) -> tuple[float, dict[K, float]]:
        """The idf weight of the bigrams (common ones ignored; a bigram no candidate holds
        weighs most) and, per candidate holding any, the share of that weight it holds."""
        # One order whatever the caller's set: reproducible sums.
        ordered = sorted(grams)
        return _coverage_walk(
            self,
            _gram_codes_of(ordered) if set(map(len, ordered)) <= {2} else map(_gram_code, ordered),
        )

    def locate(
        self,
        quote: str,
        *,
        limit: int = 3,
        min_score: float = LOCATION_MIN_SCORE,
        exclude: Container[K] = (),
    ) -> list[tuple[K, QuoteScore]]:
        """The candidates (key, score) the quote best matches, best first; keys in exclude
        (the cited article itself) are skipped."""
        return [
            (self._keys[index], _scored(variant, span, _prepare_article(self._texts[index])))
            for index, variant, span in self._best_runs(quote, limit, min_score, exclude)
        ]

    def locate_scores(
        self,
        quote: str,
        *,
        limit: int = 3,
        min_score: float = LOCATION_MIN_SCORE,
        exclude: Container[K] = (),
    ) -> list[tuple[K, float]]:
        """`locate` with each candidate's score only (`QuoteScore.score`), for a caller that
        needs no more: the clause support and matched text of each are not made."""
        return [
            (self._keys[index], round(span.score, 4))
            for index, _, span in self._best_runs(quote, limit, min_score, exclude)
        ]

    def _best_runs(
        self, quote: str, limit: int, min_score: float, exclude: Container[K]
    ) -> list[tuple[int, str, _Span]]:
        variants = _prepare_quote(quote)
        if not self._keys or not variants[0][1]:
            return []
        shortest = min((normalised for _, normalised in variants), key=len)
        shortlist = self._shortlist(shortest)
        if exclude:
            shortlist = [i for i in shortlist if self._keys[i] not in exclude]
        return _best_runs(variants, self._runs, shortlist, limit, min_score)


def _python_shortlist(index: QuoteIndex[Any], quote: str, keep: int, exponent: float) -> list[int]:
    """`QuoteIndex._shortlist`'s walk and ranking: the `keep` candidates (indices) ranked best
    by the idf weight of the quote's bigrams they share, over the smaller of theirs and the
    quote's, times the length factor; best first, by (rank, index)."""
    quote_weight, shared, held = index._shared_weights(_gram_codes(quote))
    size = len(quote)
    half, double = size / 2, size + size  # other < size / 2 exactly when other + other < size
    weights, lengths = index._weights, index._lengths
    ranked: list[tuple[float, int]] = []
    # Each candidate once, in any order: the (rank, index) pairs are distinct, so the best
    # `keep` of them do not depend on it.
    append = ranked.append
    for candidate in set().union(*held):
        own = weights[candidate]
        # Both weights are positive (the candidate and the quote share a bigram): the smaller
        # one is never 0.
        rank = shared[candidate] / (own if own < quote_weight else quote_weight)
        other = lengths[candidate]
        # More than 2:1 apart: (2 * shorter / longer) ** exponent.
        if other > double:
            rank *= (2 * size / other) ** exponent
        elif other < half:
            rank *= (2 * other / size) ** exponent
        append((rank, candidate))
    ranked.sort(reverse=True)
    return [candidate for _, candidate in ranked[:keep]]


def _python_coverage(index: QuoteIndex[K], codes: Iterable[int]) -> tuple[float, dict[K, float]]:
    """`QuoteIndex.coverage` of the bigrams of these codes, in their order."""
    total, shared, held = index._shared_weights(codes)
    if not total:
        return 0.0, {}
    keys = index._keys
    # The candidates in the order the bigrams first reach them.
    return total, {
        keys[candidate]: shared[candidate] / total
        for candidate in dict.fromkeys(chain.from_iterable(held))
    }


try:  # the walks compiled (verifier/_quote_postings.c, built by setup.py where it can be)
    from verifier import _quote_postings
except ImportError:  # pragma: no cover - a build without a C compiler: Python walks
    _quote_postings = None  # type: ignore[assignment]

# The compiled walks add the same doubles in the same order, so they give the same results;
# the compiled run search asks the same scores in the same order.
_shortlist_walk: Callable[[QuoteIndex[Any], str, int, float], list[int]] = (
    _python_shortlist if _quote_postings is None else _quote_postings.shortlist
)
_coverage_walk: Callable[[QuoteIndex[Any], Iterable[int]], tuple[float, dict[Any, float]]] = (
    _python_coverage if _quote_postings is None else _quote_postings.coverage
)
_runs_walk: Callable[
    [Callable[..., float], str, str, tuple[int, ...], float, int, float],
    tuple[float, int, int, int],
] = _python_best_run if _quote_postings is None else _quote_postings.best_run
_span_walk: Callable[..., tuple[float, int, int, int]] = (
    _python_best_span if _quote_postings is None else _quote_postings.best_span
)


# An empty place of a _Postings table holds _NO_CODE: no bigram's code (all are below 2**53).
_NO_CODE = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class _Postings:
    """Per bigram code, the candidates holding it, in an open-addressing table kept as three
    arrays (read back, three byte strings: no dict made code by code). A code's first place
    is the code modulo `size`, a prime at least three times the number of codes (one division
    of a small int; a lookup of a code the table lacks then ends after 1.6 places on average);
    a taken place sends it on to the next, past the end too: the arrays run on as far as the
    last code placed needed, so a probe never wraps around. The candidates of the code at
    place p are items[at[p] : at[p + 1]], none for a common bigram."""

    # Arrays when built, views of the bytes read when read back (`QuoteIndex.from_parts`).
    codes: array[int] | memoryview  # per place, the code there or _NO_CODE
    # Per place, where its candidates start in items; then where the last end.
    at: array[int] | memoryview
    items: array[int] | memoryview
    size: int

    @classmethod
    def build(cls, postings: dict[int, list[int]], common: int) -> _Postings:
        """The table of postings, those of more than `common` candidates left empty."""
        size = _prime_from(3 * len(postings) + 2)
        codes = array("Q", [_NO_CODE]) * (size + 1)
        held: list[list[int]] = [[]] * (size + 1)
        for code, posting in postings.items():
            place = code % size
            while codes[place] != _NO_CODE:
                place += 1
            codes[place] = code
            if len(posting) <= common:
                held[place] = posting
            if place == len(codes) - 1:  # a probe past the last code ends at _NO_CODE
                codes.append(_NO_CODE)
                held.append([])
        return cls(
            codes,
            array("I", accumulate(map(len, held), initial=0)),
            array("I", chain.from_iterable(held)),
            size,
        )

    def place(self, code: int) -> int:
        """The place of code, or -1 when the table does not hold it."""
        codes = self.codes
        place = code % self.size
        while (there := codes[place]) != code:
            if there == _NO_CODE:
                return -1
            place += 1
        return place

    def to_plain(self) -> tuple[bytes, bytes, bytes, int]:
        return self.codes.tobytes(), self.at.tobytes(), self.items.tobytes(), self.size

    @classmethod
    def from_plain(cls, plain: tuple[bytes, bytes, bytes, int]) -> _Postings:
        codes, at, items, size = plain
        return cls(array("Q", codes), array("I", at), array("I", items), size)


def _prime_from(number: int) -> int:
    """The least prime at least number (number >= 2)."""
    while any(number % divisor == 0 for divisor in range(2, math.isqrt(number) + 1)):
        number += 1
    return number


def _common_limit(count: int) -> int:
    """Bigrams held by more of `count` candidates than this are common (they do not rank)."""
    return max(PREFILTER_COMMON_MIN, int(count * PREFILTER_COMMON_SHARE))


def _idf_table(count: int) -> list[float]:
    """The idf of a bigram held by n of `count` candidates, at index n up to the common limit:
    a bigram's weight depends on nothing else, so a short table serves every bigram (and a
    kept index need not store a float per bigram)."""
    return [0.0, *(math.log((count + 1) / held) for held in range(1, _common_limit(count) + 1))]


# A bigram's code: its 8 bytes in UTF-32-LE read as one unsigned 64-bit int (a + b * 2**32 on
# a little-endian machine: distinct for distinct bigrams, below 2**53), so a text's codes are
# read in C from its encoding, as two runs of 8-byte words (from its first and from its second
# character) interleaved, with no int arithmetic per bigram. A kept index's arrays are native
# too: it is read back on the machine that made it.


def _gram_codes(text: str) -> dict[int, None]:
    """The codes of the distinct bigrams of text in the order they first occur (a set's order
    would change float sums, and so near-tied rankings, with PYTHONHASHSEED)."""
    data = _to_utf_32(text)
    even = len(data) // 8 * 8  # the bigrams from even places: characters 0-1, 2-3 …
    odd = (len(data) - 4) // 8 * 8 if data else 0  # and from odd ones: 1-2, 3-4 …
    from_even = memoryview(data[:even]).cast("Q")
    from_odd = memoryview(data[4 : 4 + odd]).cast("Q")
    codes = dict.fromkeys(chain.from_iterable(zip(from_even, from_odd, strict=False)))
    if len(from_even) > len(from_odd):  # an odd number of bigrams: the last one is left
        codes[from_even[-1]] = None
    return codes


def _gram_codes_of(bigrams: list[str]) -> memoryview:
    """The codes of bigrams, each of two characters (as `_gram_code`, in C): a view of 64-bit
    words, which the compiled walk reads without making an int of each."""
    return memoryview(_to_utf_32("".join(bigrams))).cast("Q")


def _gram_code(gram: str) -> int:
    """The code of a bigram (-1, which no bigram has, for a text of another length)."""
    if len(gram) != 2:
        return -1
    return _pair_code(gram)


def _encoded_pair_code(gram: str) -> int:
    """The code of a bigram of two characters, from its encoding (any machine's byte order)."""
    return int.from_bytes(_to_utf_32(gram), sys.byteorder)


def _ordinal_pair_code(gram: str) -> int:
    """`_encoded_pair_code` on a little-endian machine, from the two code points: no encoding
    made (UTF-32-LE holds each code point, lone surrogates too, as a little-endian word)."""
    return ord(gram[0]) | ord(gram[1]) << 32


_pair_code = _ordinal_pair_code if sys.byteorder == "little" else _encoded_pair_code


def _best_runs(
    variants: Sequence[tuple[str, str]],
    runs_of: Callable[[int], _Runs],
    shortlist: Iterable[int],
    limit: int,
    min_score: float,
) -> list[tuple[int, str, _Span]]:
    """Score the shortlisted candidates exactly: the best `limit` at or above min_score (index,
    variant, best run of sentences), best first.

    A variant skipped for its bound scores below a variant scored, so the best variant scored
    is the one `_score` would choose from all of them (the first of the highest score); a run
    below min_score is never kept, so none is searched for (FLOOR_MARGIN)."""
    floor = _floor(min_score)
    indices = list(shortlist)
    articles = list(map(runs_of, indices))
    texts = [article.text for article in articles]
    commons = [_common_lengths(norm, texts) for _, norm in variants]
    spans = _spans_walk(
        Indel.normalized_similarity,
        variants if type(variants) is tuple else tuple(variants),
        indices,
        texts,
        [article.bounds for article in articles],
        commons,
        min_score,
        floor,
        BOUND_MARGIN,
    )
    spans.sort(key=lambda found: (found[0], found[1]), reverse=True)
    return [(index, variant, _new_span(_Span, span)) for _, index, variant, span in spans[:limit]]


def _python_best_spans(
    similarity: Callable[..., float],
    variants: tuple[tuple[str, str], ...],
    indices: list[int],
    texts: list[str],
    bounds: list[tuple[int, ...]],
    commons: list[list[int]],
    min_score: float,
    floor: float,
    margin: float,
) -> list[tuple[float, int, str, tuple[float, int, int, int]]]:
    """`_best_runs`' walk of the shortlisted candidates (indices, their runs' texts and bounds;
    per variant, its LCS with each text): per candidate whose best variant's best run scores
    at least min_score, (score, index, variant, (score, first, last, length)), in their order.
    Runs are searched as `_best_span` searches them, by similarity (Indel's), from floor."""
    spans: list[tuple[float, int, str, tuple[float, int, int, int]]] = []
    for place, index in enumerate(indices):
        article = _Runs(texts[place], bounds[place])
        best_variant, best = variants[0][0], _NO_SPAN
        for (raw, norm), common_of in zip(variants, commons, strict=True):
            # No run of the article shares more with the quote than the whole article does,
            # so 2·LCS/(|quote|+LCS) bounds every run's Indel similarity: skip hopeless ones.
            common = common_of[place]
            needed = best.score if best.score > min_score else min_score  # max(), inline
            if not norm or 2 * common / (len(norm) + common or 1) < needed:
                continue
            span = _best_span(norm, article, floor, common, similarity, margin)
            if span.score > best.score:
                best_variant, best = raw, span
                if best.score == 1.0:
                    break  # no variant scores higher
        if best.score >= min_score:
            spans.append((best.score, index, best_variant, best))
    return spans


# The compiled walk of the shortlist asks the same scores in the same order.
_spans_walk: Callable[..., list[tuple[float, int, str, tuple[float, int, int, int]]]] = (
    _python_best_spans if _quote_postings is None else _quote_postings.best_spans
)


def _common_lengths(quote: str, texts: list[str]) -> list[int]:
    """The length of the longest common subsequence of quote with each text, 0 for an empty
    quote: in one call, which builds the quote's bit-parallel table once (called text by text,
    rapidfuzz built the longer text's table, and cleared it, each time)."""
    if not quote:
        return [0] * len(texts)
    if _quote_postings is not None:
        # In C through rapidfuzz's scorer interface: the same table, without extract's results
        # (a tuple each, sorted by score) to read back.
        found = _quote_postings.common_lengths(LCSseq.similarity, quote, texts)
        if found is not None:
            return found
    common = [0] * len(texts)
    for _, length, place in process.extract(quote, texts, scorer=LCSseq.similarity, limit=None):
        common[place] = length
    return common


def _lcs_shortlist(quote: str, candidates: Sequence[str]) -> list[int]:
    """Indices of the PREFILTER_KEEP candidates ranked best by the LCS share of the shorter
    text, with the same length-disparity factor as `QuoteIndex` (one pass in C)."""
    size = len(quote)
    ranked = []
    for _, common, index in process.extract(
        quote, candidates, scorer=LCSseq.similarity, limit=None, score_cutoff=1
    ):
        other = len(candidates[index])
        shorter, longer = (size, other) if size < other else (other, size)
        disparity = min(1.0, 2 * shorter / longer) ** PREFILTER_LENGTH_EXPONENT
        ranked.append((common / shorter * disparity, index))
    return [index for _, index in heapq.nlargest(PREFILTER_KEEP, ranked)]


def best_location(
    quote: str,
    candidates: Iterable[tuple[K, str]],
    *,
    limit: int = 3,
    min_score: float = LOCATION_MIN_SCORE,
) -> list[tuple[K, QuoteScore]]:
    """The candidate articles (key, text) the quote best matches, best first.

    One-off: ranks all candidates by their longest common subsequence with the quote (about
    2 µs per candidate) and scores the best PREFILTER_KEEP exactly. To look up many quotes in
    the same articles, build a `QuoteIndex` once and call its `locate`.
    """
    variants = _prepare_quote(quote)
    pairs = list(candidates)
    if not pairs or not variants[0][1]:
        return []
    texts = [text for _, text in pairs]
    shortest = min((normalised for _, normalised in variants), key=len)
    shortlist = _lcs_shortlist(shortest, [normalize_for_compare(t) for t in texts])
    return [
        (pairs[index][0], _scored(variant, span, _prepare_article(texts[index])))
        for index, variant, span in _best_runs(
            variants, lambda i: _prepare_article(texts[i]), shortlist, limit, min_score
        )
    ]
