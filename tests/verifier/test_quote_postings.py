"""The compiled postings walk and run search (verifier/_quote_postings.c) give what the Python
ones give: the same shortlists, the same coverage floats in the same order, the same runs."""

from __future__ import annotations

import importlib.util
import json
import sys
from array import array
from collections.abc import Iterable
from datetime import date
from itertools import accumulate
from types import ModuleType
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from rapidfuzz import process
from rapidfuzz.distance import Indel, LCSseq

import verifier
from extractor import extract
from legaldb import StatuteRepository
from tests.conftest import SHARED_DIR
from tests.verifier.statute_texts import REAL_ARTICLES
from verifier import quotes
from verifier.content import version_index
from verifier.quotes import PREFILTER_KEEP, PREFILTER_LENGTH_EXPONENT, QuoteIndex, quote_keys
from verifier.support import content_bigrams

compiled = quotes._quote_postings
needs_compiled = pytest.mark.skipif(compiled is None, reason="built without a C compiler")

AS_OF = date(2023, 8, 1)


def _both_shortlists(
    index: QuoteIndex[Any], quote: str, keep: int = PREFILTER_KEEP
) -> tuple[list[int], list[int]]:
    assert compiled is not None
    return (
        quotes._python_shortlist(index, quote, keep, PREFILTER_LENGTH_EXPONENT),
        compiled.shortlist(index, quote, keep, PREFILTER_LENGTH_EXPONENT),
    )


def _both_coverages(index: QuoteIndex[Any], grams: Iterable[str]) -> tuple[Any, Any]:
    """Each path's coverage of the grams (sorted, as `QuoteIndex.coverage` walks them), with
    the shares' dict as a list: equal lists are the same floats in the same order."""
    assert compiled is not None
    ordered = sorted(grams)
    found = []
    for walk in (quotes._python_coverage, compiled.coverage):
        codes = (
            quotes._gram_codes_of(ordered)
            if all(len(gram) == 2 for gram in ordered)
            else map(quotes._gram_code, ordered)
        )
        total, shares = walk(index, codes)
        found.append((total, list(shares.items())))
    return found[0], found[1]


def _codes(grams: Iterable[str]) -> Any:
    ordered = sorted(grams)
    if all(len(gram) == 2 for gram in ordered):
        return quotes._gram_codes_of(ordered)
    return list(map(quotes._gram_code, ordered))


def _both_runs(quote: str, runs: quotes._Runs, floor: float) -> tuple[Any, Any]:
    """Each path's best run of the runs for the quote, from floor, bounded by their LCS."""
    assert compiled is not None
    common = LCSseq.similarity(quote, runs.text)
    args = (Indel.normalized_similarity, quote, runs.text, runs.bounds, floor, common)
    return (
        quotes._python_best_run(*args, quotes.BOUND_MARGIN),
        compiled.best_run(*args, quotes.BOUND_MARGIN),
    )


@needs_compiled
def test_the_index_walks_through_the_compiled_module() -> None:
    assert quotes._shortlist_walk is compiled.shortlist  # type: ignore[union-attr]
    assert quotes._coverage_walk is compiled.coverage  # type: ignore[union-attr]
    assert quotes._runs_walk is compiled.best_run  # type: ignore[union-attr]
    assert quotes._spans_walk is compiled.best_spans  # type: ignore[union-attr]
    assert quotes._span_walk is compiled.best_span  # type: ignore[union-attr]


def _quotes_without_compiled_walks(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """A fresh copy of verifier.quotes imported as where the module is not built."""
    spec = importlib.util.spec_from_file_location("quotes_without_c", quotes.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "quotes_without_c", module)  # its dataclasses look it up
    monkeypatch.setitem(sys.modules, "verifier._quote_postings", None)  # importing it fails
    monkeypatch.delattr(verifier, "_quote_postings", raising=False)
    spec.loader.exec_module(module)
    return module


def test_without_the_module_python_walks_and_finds_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = _quotes_without_compiled_walks(monkeypatch)
    assert plain._quote_postings is None
    assert plain._shortlist_walk is plain._python_shortlist
    assert plain._coverage_walk is plain._python_coverage
    assert plain._runs_walk is plain._python_best_run
    assert plain._spans_walk is plain._python_best_spans
    assert plain._span_walk is plain._python_best_span
    python_index = plain.QuoteIndex(REAL_ARTICLES.items())
    index = QuoteIndex(REAL_ARTICLES.items())
    grams = sorted({text[i : i + 2] for text in REAL_ARTICLES.values() for i in range(len(text))})
    for text in REAL_ARTICLES.values():
        for quote in (text, text.split("\n")[-1], text[5:40]):
            assert python_index.locate(quote) == index.locate(quote)
    assert list(python_index.coverage(grams)[1].items()) == list(index.coverage(grams)[1].items())


# Random indexes: candidates made of a few syllables, so that they share bigrams, tie (the
# same text twice), and hold common bigrams once there are more than 20 of them.
_syllables = st.sampled_from(
    ["应当", "规定", "劳动", "合同", "赔偿", "用人", "单位", "的", "。", "𠀀"]
)
_texts = st.lists(_syllables, min_size=0, max_size=40).map("".join)


@needs_compiled
@given(
    st.lists(_texts, min_size=0, max_size=70),
    st.lists(_texts, min_size=1, max_size=6),
    st.integers(min_value=0, max_value=12),
)
def test_random_indexes_give_the_same_shortlists_and_coverage(
    candidates: list[str], recited: list[str], keep: int
) -> None:
    """Over any index and quotes (any `keep`, bigrams and texts of other lengths in coverage),
    the compiled walk gives the Python walk's shortlist and coverage floats, in order."""
    index = QuoteIndex(enumerate(candidates))
    for quote in recited:
        python_found, compiled_found = _both_shortlists(index, quote, keep)
        assert compiled_found == python_found
        grams = {quote[i : i + 2] for i in range(len(quote))}  # the last one is 1 character
        python_cover, compiled_cover = _both_coverages(index, grams)
        assert compiled_cover == python_cover
        python_cover, compiled_cover = _both_coverages(index, grams - {quote[-1:]})
        assert compiled_cover == python_cover


@needs_compiled
@given(
    _texts,
    st.lists(st.lists(_syllables, min_size=1, max_size=8).map("".join), max_size=8),
    st.sampled_from([0.0, 0.3, quotes._floor(0.6), 0.999]),
)
def test_random_runs_give_the_same_best_run(quote: str, sentences: list[str], floor: float) -> None:
    """Over any sentences, quote and floor, the compiled run search finds the Python one's
    (score, first, last, length)."""
    runs = quotes._prepare("".join(sentence + "\n" for sentence in sentences))
    python_found, compiled_found = _both_runs(quote, runs, floor)
    assert compiled_found == python_found


def _called_from_python(first: str, second: str, score_cutoff: float) -> float:
    """Indel.normalized_similarity called as a Python function (no `_RF_Scorer` capsule): the
    compiled run search calls it, as it called every similarity before it read the capsule."""
    return Indel.normalized_similarity(first, second, score_cutoff=score_cutoff)


# Characters of each width a str stores (1, 2 and 4 bytes), so that the quote and the text
# are each of any of the three kinds, as the scorer's views of them are.
_any_width = st.text(st.sampled_from("ab。的规定合同𠀀𠀁"), max_size=30)


@needs_compiled
@given(
    _any_width,
    st.lists(_any_width.filter(bool), max_size=8),
    st.sampled_from([0.0, 0.3, quotes._floor(0.6), 0.999]),
    st.booleans(),
)
def test_rapidfuzz_s_scorer_interface_scores_as_its_python_call(
    quote: str, sentences: list[str], floor: float, bounded: bool
) -> None:
    """Given Indel.normalized_similarity, the compiled run search asks its C scorer (built once
    for the quote, reading each run in place): the same (score, first, last, length) as when
    it calls the function from Python for each run, over quotes and texts of every kind of str
    (Latin-1, BMP and astral characters), with or without the LCS bound."""
    assert compiled is not None
    assert Indel.normalized_similarity._RF_Scorer is not None  # type: ignore[attr-defined]
    text = "".join(sentences)
    bounds = tuple([0, *accumulate(map(len, sentences))])
    common = LCSseq.similarity(quote, text) if bounded else len(quote)
    args = (quote, text, bounds, floor, common, quotes.BOUND_MARGIN)
    found = compiled.best_run(Indel.normalized_similarity, *args)
    assert found == compiled.best_run(_called_from_python, *args)
    assert found == quotes._python_best_run(Indel.normalized_similarity, *args)


@needs_compiled
@given(_any_width, st.lists(_any_width, max_size=8))
def test_the_common_lengths_are_those_extract_gives(quote: str, texts: list[str]) -> None:
    """The compiled common lengths (LCSseq's C scorer built once for the quote) are the
    lengths rapidfuzz's process.extract gives, text by text; a callable without the scorer
    interface gets None (the caller then asks extract)."""
    assert compiled is not None
    expected = [0] * len(texts)
    for _, length, place in process.extract(quote, texts, scorer=LCSseq.similarity, limit=None):
        expected[place] = length
    assert compiled.common_lengths(LCSseq.similarity, quote, texts) == expected
    assert quotes._common_lengths(quote, texts) == (expected if quote else [0] * len(texts))
    assert compiled.common_lengths(lambda first, second: 0, quote, texts) is None


def _flzx_citations() -> list[tuple[str, str]]:
    """(law, quote) of every quoted citation of flzx_dev_answers with a law's name."""
    path = SHARED_DIR / "eval" / "flzx_dev_answers.jsonl"
    found = {}
    for line in path.read_text("utf-8").splitlines():
        for citation in extract(json.loads(line)["answer"]):
            if citation.quote is not None and citation.law is not None:
                found[citation.law, citation.quote.text] = None
    return list(found)


@needs_compiled
def test_the_flzx_quotes_give_the_same_shortlists_and_coverage(
    statute_repository: StatuteRepository,
) -> None:
    """Each recitation of the flzx answers, against its law's version in force and the Civil
    Code's: the same shortlist from both walks (of each variant), the same best run of each
    shortlisted article from both run searches, and the same coverage floats in the same
    order (of its content bigrams, as the support verdicts ask)."""
    civil = statute_repository.resolve("民法典")
    assert civil is not None
    indexes: dict[int, QuoteIndex[Any]] = {}

    def index_of(law_id: int) -> QuoteIndex[Any] | None:
        version = statute_repository.version_in_force(law_id, AS_OF)
        if version is None:
            return None
        if version.id not in indexes:
            indexes[version.id] = version_index(statute_repository, version.id)
        return indexes[version.id]

    civil_index = index_of(civil.id)
    assert civil_index is not None and len(civil_index) > 1000
    compared = 0
    for law_name, quote in _flzx_citations():
        law = statute_repository.resolve(law_name)
        own = index_of(law.id) if law is not None else None
        for index in (civil_index, own):
            if index is None:
                continue
            for key in quote_keys(quote):
                python_found, compiled_found = _both_shortlists(index, key)
                assert compiled_found == python_found, (law_name, key)
                compared += 1
                for candidate in compiled_found:
                    for floor in (0.0, quotes._floor(0.6)):
                        python_run, compiled_run = _both_runs(key, index._runs(candidate), floor)
                        assert compiled_run == python_run, (law_name, key, candidate)
            grams = content_bigrams(min(quote_keys(quote), key=len))
            python_cover, compiled_cover = _both_coverages(index, grams)
            assert compiled_cover == python_cover, (law_name, quote)
    assert compared > 1500, "the grid must hold most of the flzx recitations"
    assert len(indexes) > 20, "and many laws' indexes"


class _CallingBack:
    """A key whose hash asks another index's coverage: a walk that starts inside a walk."""

    def __init__(self, name: str, other: QuoteIndex[Any], grams: list[str]) -> None:
        self.name, self.other, self.grams = name, other, grams
        self.seen: list[tuple[float, dict[Any, float]]] = []

    def __hash__(self) -> int:
        self.seen.append(self.other.coverage(self.grams))
        return hash(self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _CallingBack) and other.name == self.name


@needs_compiled
def test_a_walk_inside_a_walk_gives_the_same() -> None:
    """A coverage asked while another is being made (a key's hash) gives what it gives alone,
    and so does the outer one."""
    other = QuoteIndex(REAL_ARTICLES.items())
    grams = sorted({text[i : i + 2] for text in REAL_ARTICLES.values() for i in range(len(text))})
    alone = other.coverage(grams)
    keys = [_CallingBack(name, other, grams) for name in REAL_ARTICLES]
    index = QuoteIndex(zip(keys, REAL_ARTICLES.values(), strict=True))
    plain = QuoteIndex(REAL_ARTICLES.items())
    total, shares = index.coverage(grams)
    assert all(seen == alone for key in keys for seen in key.seen)
    assert sum(len(key.seen) for key in keys) >= len(keys)
    assert (total, [(key.name, share) for key, share in shares.items()]) == (
        plain.coverage(grams)[0],
        list(plain.coverage(grams)[1].items()),
    )


@needs_compiled
@given(
    st.lists(_any_width.filter(bool), min_size=1, max_size=11),
    st.lists(
        st.tuples(st.integers(0, 10), st.booleans(), st.lists(_any_width.filter(bool), max_size=5)),
        max_size=16,
    ),
)
def test_the_kept_scorers_score_each_quote_as_a_fresh_one(
    quotes_asked: list[str], calls: list[tuple[int, bool, list[str]]]
) -> None:
    """best_run and common_lengths keep the scorers of their last quotes (eight, an Indel and
    an LCSseq scorer each): asked about up to eleven quotes in any order, by either (each a
    distinct str object, as equal texts made apart are), each call finds what the Python
    search or rapidfuzz's function finds, so no quote is ever scored with another quote's
    scorer, nor with the other function's, nor with a scorer evicted before it."""
    assert compiled is not None
    made = ["".join(list(quote)) for quote in quotes_asked]  # distinct objects, some equal
    for which, runs, sentences in calls:
        quote = made[which % len(made)]
        text = "".join(sentences)
        if not runs:
            expected = [LCSseq.similarity(quote, t) for t in (text, *sentences)]
            assert compiled.common_lengths(LCSseq.similarity, quote, [text, *sentences]) == expected
            continue
        bounds = tuple([0, *accumulate(map(len, sentences))])
        args = (quote, text, bounds, 0.0, len(quote), quotes.BOUND_MARGIN)
        found = compiled.best_run(Indel.normalized_similarity, *args)
        assert found == quotes._python_best_run(Indel.normalized_similarity, *args)


def _both_spans(
    variants: tuple[tuple[str, str], ...],
    articles: list[quotes._Runs],
    min_score: float,
    indices: list[int] | None = None,
) -> tuple[Any, Any]:
    """Each path's best spans of the candidates (`_best_runs`' walk): the Python one with the
    Python run search throughout, and the compiled one."""
    assert compiled is not None
    texts = [article.text for article in articles]
    args = (
        variants,
        list(range(len(articles))) if indices is None else indices,
        texts,
        [article.bounds for article in articles],
        [quotes._common_lengths(norm, texts) for _, norm in variants],
        min_score,
        quotes._floor(min_score),
        quotes.BOUND_MARGIN,
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(quotes, "_runs_walk", quotes._python_best_run)
        python_found = quotes._python_best_spans(Indel.normalized_similarity, *args)
    return python_found, compiled.best_spans(Indel.normalized_similarity, *args)


@needs_compiled
@given(
    st.lists(st.lists(_any_width.filter(bool), max_size=6), min_size=0, max_size=6),
    st.data(),
    st.sampled_from([0.0, 0.3, 0.6, 0.8, 1.0]),
)
def test_random_candidates_give_the_same_best_spans(
    sentences_of: list[list[str]], data: st.DataObject, min_score: float
) -> None:
    """Over any candidates (sentences of every kind of str), quote variants (some empty, some
    a run of a candidate's sentences word for word, some a run's text across a sentence
    bound, some other text) and min_score, the compiled walk of the shortlist gives the Python
    one's (score, index, variant, run) per candidate kept, in order."""
    articles = [
        quotes._Runs("".join(sentences), tuple([0, *accumulate(map(len, sentences))]))
        for sentences in sentences_of
    ]
    pieces = [article.text for article in articles] + [
        "".join(sentences[i:j])
        for sentences in sentences_of
        for i in range(len(sentences))
        for j in range(i + 1, len(sentences) + 1)
    ]
    norm = st.one_of(
        _any_width,
        st.sampled_from(pieces) if pieces else _any_width,
        (st.sampled_from(pieces) if pieces else _any_width).map(lambda text: text[1:]),
    )
    variants = tuple(data.draw(st.lists(st.tuples(_any_width, norm), min_size=1, max_size=4)))
    python_found, compiled_found = _both_spans(variants, articles, min_score)
    assert compiled_found == python_found


@needs_compiled
def test_best_spans_refuses_what_it_cannot_read() -> None:
    """Arguments of the wrong kinds or lengths raise, as Python's walk would fail on them."""
    assert compiled is not None
    good: tuple[Any, ...] = (
        (("a", "ab"),),
        [0],
        ["ab"],
        [(0, 2)],
        [[2]],
        0.6,
        quotes._floor(0.6),
        quotes.BOUND_MARGIN,
    )
    similarity = Indel.normalized_similarity
    assert compiled.best_spans(similarity, *good) == [(1.0, 0, "a", (1.0, 0, 0, 2))]
    for place, wrong in [(0, (("a", 1),)), (0, [("a", "ab")]), (1, [0, 1]), (2, [b"ab"]),
                         (3, [[0, 2]]), (3, [(0, -1)]), (4, [[2, 2]]), (4, [["2"]])]:  # fmt: skip
        bad: list[Any] = list(good)
        bad[place] = wrong
        with pytest.raises((TypeError, ValueError)):
            compiled.best_spans(similarity, *bad)


@needs_compiled
def test_the_flzx_quotes_give_the_same_best_spans(statute_repository: StatuteRepository) -> None:
    """Each recitation of the flzx answers against its law's version in force: the shortlist's
    candidates walked by both paths give the same best spans, at the location's min_score and
    from 0."""
    compared = 0
    indexes: dict[int, QuoteIndex[Any]] = {}
    for law_name, quote in _flzx_citations():
        law = statute_repository.resolve(law_name)
        version = statute_repository.version_in_force(law.id, AS_OF) if law is not None else None
        if version is None:
            continue
        if version.id not in indexes:
            indexes[version.id] = version_index(statute_repository, version.id)
        index = indexes[version.id]
        variants = quotes._prepare_quote(quote)
        if not variants[0][1]:
            continue
        shortlist = index._shortlist(min((norm for _, norm in variants), key=len))
        articles = [index._runs(candidate) for candidate in shortlist]
        for min_score in (quotes.LOCATION_MIN_SCORE, 0.0):
            python_found, compiled_found = _both_spans(variants, articles, min_score, shortlist)
            assert compiled_found == python_found, (law_name, quote)
            compared += len(compiled_found)
    assert compared > 1000, "the grid must hold most of the flzx recitations"


@given(st.text(st.characters(codec=None, min_codepoint=0), min_size=2, max_size=2))
@example("\ud800a")
@example("a\udfff")
def test_a_pair_s_code_is_its_encoding_s(gram: str) -> None:
    """A bigram's code from its code points is the one from its UTF-32-LE bytes (lone
    surrogates and astral characters too), on this machine."""
    assert quotes._pair_code(gram) == quotes._encoded_pair_code(gram)
    assert quotes._gram_code(gram) == quotes._encoded_pair_code(gram)


@given(
    st.lists(_texts, min_size=0, max_size=70),
    st.lists(st.text(st.sampled_from("应当规定的。𠀀"), max_size=3)),
)
def test_is_common_is_the_tables_answer(candidates: list[str], grams: list[str]) -> None:
    """is_common's inline probe answers as the postings table's place: a bigram the table holds
    with no posting (held by more candidates than the common limit), nothing else."""
    index = QuoteIndex(enumerate(candidates))
    table = index._postings
    for gram in grams + [text[i : i + 2] for text in candidates[:5] for i in range(len(text))]:
        place = table.place(quotes._gram_code(gram))
        expected = place >= 0 and table.at[place] == table.at[place + 1]
        assert index.is_common(gram) is expected


class _CountedKey:
    """A key that counts how often it is hashed (and hashes as its text)."""

    hashed = 0

    def __init__(self, text: str) -> None:
        self.text = text

    def __hash__(self) -> int:
        _CountedKey.hashed += 1
        return hash(self.text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _CountedKey) and other.text == self.text


@needs_compiled
@given(st.lists(_texts, max_size=40), st.lists(_texts, min_size=1, max_size=6))
def test_the_kept_key_hashes_are_the_keys_hashes(candidates: list[str], recited: list[str]) -> None:
    """The compiled coverage keeps each key's hash on the index (`_key_hashes`) once asked:
    covered again and again, its dict is the Python walk's (equal dicts: each key found under
    the other dict's hash of it), in the same order, and every hash kept is the key's."""
    assert compiled is not None
    keys = [((i // 2, None if i % 2 else "之一"), f"第{i}条") for i in range(len(candidates))]
    index = QuoteIndex(zip(keys, candidates, strict=True))
    assert index._key_hashes is None
    for quote in recited * 2:  # the second time, the hashes kept are read
        grams = {quote[i : i + 2] for i in range(len(quote) - 1)}
        python_total, python_shares = quotes._python_coverage(index, _codes(grams))
        total, shares = compiled.coverage(index, _codes(grams))
        assert (total, list(shares.items())) == (python_total, list(python_shares.items()))
        assert shares == python_shares and python_shares == shares
        assert all(shares[key] == share for key, share in python_shares.items())
    if index._key_hashes is not None:
        kept = array("q", index._key_hashes)
        assert len(kept) == len(keys)
        assert all(h in (-1, hash(key)) for h, key in zip(kept, keys, strict=True))


@needs_compiled
def test_a_key_is_hashed_once_and_an_unhashable_one_fails_as_in_python() -> None:
    assert compiled is not None
    texts = list(REAL_ARTICLES.values())
    index = QuoteIndex((_CountedKey(str(i)), text) for i, text in enumerate(texts))
    grams = {text[i : i + 2] for text in texts for i in range(len(text) - 1)}
    _CountedKey.hashed = 0
    first = compiled.coverage(index, _codes(grams))
    assert _CountedKey.hashed == len(first[1]) == len(texts)
    assert compiled.coverage(index, _codes(grams)) == first
    assert _CountedKey.hashed == len(texts)  # not hashed again
    index._key_hashes = bytearray(3)  # not one hash per key: made again
    assert compiled.coverage(index, _codes(grams)) == first
    assert len(index._key_hashes) == 8 * len(texts)
    unhashable = QuoteIndex([([1], texts[0])])
    with pytest.raises(TypeError, match="unhashable"):
        quotes._python_coverage(unhashable, _codes(grams))
    with pytest.raises(TypeError, match="unhashable"):
        compiled.coverage(unhashable, _codes(grams))


def _lcs_from_python(first: str, second: str) -> int:
    """LCSseq.similarity called as any Python function is (no scorer interface)."""
    return LCSseq.similarity(first, second)


@needs_compiled
@given(
    _any_width,
    st.lists(_any_width, max_size=7),
    st.sampled_from([0.0, 0.3, 0.599, 0.999, 1.0]),
    st.sampled_from([-1, 0, 3, 1000]),
    st.booleans(),
)
def test_the_compiled_span_search_is_the_python_one(
    quote: str, sentences: list[str], floor: float, common: int, embed: bool
) -> None:
    """best_span (the exact run, the LCS bound made when not given, the run search) finds what
    `_python_best_span` finds, with rapidfuzz's LCSseq scorer or any other function of two
    texts for the bound, over quotes and sentences of every kind of str; a quote that is a run
    of the sentences is found at its first place."""
    assert compiled is not None
    if embed and sentences:
        sentences = [*sentences, quote, *sentences]
    text = "".join(sentences)
    bounds = tuple([0, *accumulate(map(len, sentences))])
    for lcs in (LCSseq.similarity, _lcs_from_python):
        args = (Indel.normalized_similarity, lcs, quote, text, bounds, floor, common, 1e-9)
        found = _outcome(compiled.best_span, *args)
        assert found == _outcome(quotes._python_best_span, *args)
        runs = quotes._Runs(text, bounds)
        assert _outcome(quotes._best_span, quote, runs, floor, common) == found


def _outcome(search: Any, *args: Any) -> Any:
    """What a search gives, or the type of what it raises (an empty run of an empty quote
    divides by zero in both)."""
    try:
        return tuple(search(*args))
    except ZeroDivisionError as error:
        return type(error)


@needs_compiled
def test_the_compiled_span_search_refuses_what_it_cannot_search() -> None:
    assert compiled is not None
    args: tuple[Any, ...] = (
        Indel.normalized_similarity, LCSseq.similarity, "规定", "规定", (0, 2), 0.0, -1, 1e-9
    )  # fmt: skip
    assert compiled.best_span(*args) == (1.0, 0, 0, 2)
    with pytest.raises(TypeError):
        compiled.best_span(*args[:7])
    with pytest.raises(TypeError):
        compiled.best_span(*args[:2], b"q", *args[3:])  # type: ignore[arg-type, call-arg]
    with pytest.raises(TypeError):
        compiled.best_span(*args[:4], [0, 2], *args[5:])  # type: ignore[arg-type, call-arg]
    with pytest.raises(ValueError, match="boom"):
        compiled.best_span(
            args[0], _raising, "甲乙", "甲。乙。丙。丁。", (0, 2, 4, 6, 8), 0.0, -1, 1e-9
        )


def _raising(first: str, second: str) -> int:
    raise ValueError("boom")
