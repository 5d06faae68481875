"""The quote check: verdicts on real recitations and article texts, and where a quote is from."""

from __future__ import annotations

import marshal
import random
import re
import time
from operator import add

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz.distance import Indel, LCSseq

from tests.strategies import chinese_sentences
from tests.verifier.statute_texts import (
    COMMERCIAL_BANK_27,
    CONSUMER_1,
    CRIMINAL_LAW_17,
    LABOR_CONTRACT_14,
    LABOR_CONTRACT_82,
    REAL_ARTICLES,
    SOCIAL_INSURANCE_67,
    SOCIAL_INSURANCE_68,
)
from textnorm import HALF_WIDTH, fold_width
from verifier import quotes
from verifier.quotes import MATCH_SCORE, QuoteIndex, best_location, compare_quote
from verifier.textnorm_quote import _fold_width, normalize_for_compare, split_sentences

LABOR_82_FIRST, LABOR_82_SECOND = LABOR_CONTRACT_82.split("\n")
BANK_27_PARAGRAPHS = COMMERCIAL_BANK_27.split("\n")

VERDICTS = [
    # (id, quote, article text, expected verdict)
    ("whole-article", LABOR_CONTRACT_82, LABOR_CONTRACT_82, "match"),
    (
        "half-width-punctuation-and-spaces",
        LABOR_CONTRACT_82.replace("，", ", ").replace("。", ". ").replace("\n", "  "),
        LABOR_CONTRACT_82,
        "match",
    ),
    ("one-paragraph", LABOR_82_SECOND, LABOR_CONTRACT_82, "match"),
    (
        "paragraph-with-its-items",
        "\n".join(LABOR_CONTRACT_14.split("\n")[1:5]),
        LABOR_CONTRACT_14,
        "match",
    ),
    (
        "items-marked-(1)",
        re.sub(
            r"（([一二三四])）", lambda m: f"({' 一二三四'.index(m.group(1))})", COMMERCIAL_BANK_27
        ),
        COMMERCIAL_BANK_27,
        "match",
    ),
    ("paragraphs-joined-by-full-stop", "。".join(BANK_27_PARAGRAPHS), COMMERCIAL_BANK_27, "match"),
    (
        "framing-before",
        "商业银行法第二十七条规定如下\n" + COMMERCIAL_BANK_27,
        COMMERCIAL_BANK_27,
        "match",
    ),
    (
        "category-and-framing-before",
        "民法商法商业银行法的第二十七条规定如下\n" + COMMERCIAL_BANK_27.replace("，", ","),
        COMMERCIAL_BANK_27,
        "match",
    ),
    (
        "two-framings-before",
        "根据《中华人民共和国民法典》第一编第一章第一节，消费者权益保护法第一条的内容是“"
        + CONSUMER_1
        + "”",
        CONSUMER_1,
        "match",
    ),
    (
        "framing-after",
        COMMERCIAL_BANK_27 + "\n以上就是《中华人民共和国商业银行法》第二十七条的内容。",
        COMMERCIAL_BANK_27,
        "match",
    ),
    ("model-markup", CONSUMER_1 + "<eoa>", CONSUMER_1, "match"),
    (
        "arabic-numerals",
        LABOR_CONTRACT_82.replace("二倍", "2倍").replace("一个月", "1个月"),
        LABOR_CONTRACT_82,
        "match",
    ),
    ("a-word-added", CONSUMER_1.replace("为保护", "为了保护"), CONSUMER_1, "match"),
    ("cut-mid-sentence", LABOR_82_FIRST[:20], LABOR_CONTRACT_82, "partial"),
    (
        "article-padded-with-another",
        SOCIAL_INSURANCE_67 + "\n" + SOCIAL_INSURANCE_68,
        SOCIAL_INSURANCE_67,
        "partial",
    ),
    (
        "article-buried-in-others",  # less than half of the quote is the article
        "\n".join([SOCIAL_INSURANCE_67, SOCIAL_INSURANCE_68, CONSUMER_1, LABOR_82_FIRST]),
        SOCIAL_INSURANCE_67,
        "mismatch",
    ),
    (
        "half-invented",  # its first and last clauses are the article's
        "为了保护消费者的合法权益，维护社会和谐稳定，促进经济发展，制定本法。",
        CONSUMER_1,
        "partial",
    ),
    (
        "invented-on-the-same-topic",
        "消费者有权要求经营者提供真实的商品信息，经营者不得欺骗消费者。",
        CONSUMER_1,
        "mismatch",
    ),
    ("another-article", CRIMINAL_LAW_17, LABOR_CONTRACT_82, "mismatch"),
    ("empty-quote", "", LABOR_CONTRACT_82, "mismatch"),
    ("empty-article", LABOR_CONTRACT_82, "", "mismatch"),
    ("deleted-article", LABOR_CONTRACT_82, "（删去）", "mismatch"),
]


@pytest.mark.parametrize(
    ("quote", "article", "verdict"), [c[1:] for c in VERDICTS], ids=[c[0] for c in VERDICTS]
)
def test_verdicts(quote: str, article: str, verdict: str) -> None:
    assert compare_quote(quote, article).verdict == verdict


@pytest.mark.parametrize(
    ("quote", "article", "verdict"), [c[1:] for c in VERDICTS], ids=[c[0] for c in VERDICTS]
)
def test_a_comparison_makes_its_clause_support_only_for_what_needs_it(
    quote: str, article: str, verdict: str
) -> None:
    """The verdict made without the clause support (outside PARTIAL_SCORE..MATCH_SCORE) is
    the one the support gives; the support made when asked is compare_quote's."""
    compared = quotes.compared(quote, article)
    support = quotes._support(compared._variant, compared._article.text)
    assert compared.verdict == quotes._verdict(compared._span.score, support) == verdict
    assert compared.support == round(support, 4) == compare_quote(quote, article).support


def test_score_details() -> None:
    result = compare_quote(LABOR_82_SECOND, LABOR_CONTRACT_82)
    assert result.score == 1.0
    assert result.support == 1.0
    assert result.matched == LABOR_82_SECOND
    assert 0.4 < result.coverage < 0.6  # one of two paragraphs of about the same length
    cut = compare_quote(LABOR_82_FIRST[:20], LABOR_CONTRACT_82)
    assert cut.support == 1.0 and cut.score < MATCH_SCORE
    assert cut.matched.startswith(LABOR_82_FIRST[:20])


@given(chinese_sentences)
def test_a_text_matches_itself(sentences: list[str]) -> None:
    """Any article text, quoted whole or one sentence of it, is a match with score 1."""
    article = "".join(sentences)
    assert compare_quote(article, article).score == 1.0
    assert compare_quote(sentences[0], article).verdict == "match"


@given(chinese_sentences, st.sampled_from([" ", "\n", "\u3000", ""]))
def test_writing_does_not_change_the_score(sentences: list[str], space: str) -> None:
    """Spaces, half-width punctuation and item markers leave the score unchanged."""
    article = "".join(sentences)
    quote = "".join(sentences[: max(1, len(sentences) // 2)])
    dressed = "".join(
        f"（{'一二三四五六七八九十'[i % 10]}）{space}{s.replace('，', ',').replace('。', '.')}"
        for i, s in enumerate(sentences[: max(1, len(sentences) // 2)])
    )
    assert compare_quote(dressed, article).score == compare_quote(quote, article).score


@given(st.text(max_size=200), st.text(max_size=200))
def test_scores_are_shares(quote: str, article: str) -> None:
    """For any texts, score, support and coverage lie in [0, 1]."""
    result = compare_quote(quote, article)
    assert 0.0 <= result.score <= 1.0
    assert 0.0 <= result.support <= 1.0
    assert 0.0 <= result.coverage <= 1.0


def test_normalisation() -> None:
    assert normalize_for_compare("（一）第３０条， 每月 支付2倍<eoa>") == "第三十条每月支付二倍"


# --- best_location ---


def test_finds_the_article_a_quote_is_from() -> None:
    quote = CRIMINAL_LAW_17.split("\n")[1]
    found = best_location(quote, REAL_ARTICLES.items())
    assert found[0][0] == "刑法第十七条"
    assert found[0][1].verdict == "match"
    assert [s.score for _, s in found] == sorted((s.score for _, s in found), reverse=True)


def test_reports_nothing_when_the_quote_is_nowhere() -> None:
    assert best_location("今天天气很好，我们去公园散步吧。", REAL_ARTICLES.items()) == []
    assert best_location("", REAL_ARTICLES.items()) == []
    assert best_location(CONSUMER_1, []) == []


def test_limit_and_minimum_score() -> None:
    candidates = [(i, CONSUMER_1) for i in range(5)]
    assert len(best_location(CONSUMER_1, candidates, limit=2)) == 2
    assert best_location(CONSUMER_1, [("other", LABOR_CONTRACT_82)], min_score=0.0) != []


def test_index_finds_what_best_location_finds() -> None:
    index = QuoteIndex(REAL_ARTICLES.items())
    assert len(index) == len(REAL_ARTICLES)
    for name, text in REAL_ARTICLES.items():
        quote = text.split("\n")[-1]
        assert index.locate(quote) == best_location(quote, REAL_ARTICLES.items())
        assert index.locate(quote)[0][0] == name


def test_index_skips_excluded_keys() -> None:
    index = QuoteIndex(REAL_ARTICLES.items())
    quote = CRIMINAL_LAW_17.split("\n")[0]
    assert index.locate(quote)[0][0] == "刑法第十七条"
    assert all(key != "刑法第十七条" for key, _ in index.locate(quote, exclude={"刑法第十七条"}))
    assert QuoteIndex([]).locate(quote) == []


@given(st.permutations(sorted({text[i : i + 2] for text in REAL_ARTICLES.values()
                                 for i in range(0, len(text) - 1, 7)})))  # fmt: skip
def test_coverage_is_the_same_in_any_order(grams: list[str]) -> None:
    """The same bigrams in another order (a set's order changes with PYTHONHASHSEED) give the
    very same floats, so near-tied rankings do not change from one run to the next."""
    index = QuoteIndex(REAL_ARTICLES.items())
    assert index.coverage(grams) == index.coverage(sorted(grams))
    assert index.coverage(grams) == index.coverage(set(grams))


def _decoys(count: int) -> list[tuple[str, str]]:
    """Articles made of three random sentences of the other real articles (seeded)."""
    rng = random.Random(7)
    others = [text for text in REAL_ARTICLES.values() if text != COMMERCIAL_BANK_27]
    sentences = [s for text in others for s in re.split(r"(?<=[。；])", text) if s]
    return [(f"decoy-{i}", "".join(rng.sample(sentences, 3))) for i in range(count)]


def test_finds_a_quote_among_thousands_of_candidates() -> None:
    """The right article among 3,000 others made of similar sentences, in reasonable time."""
    decoys = _decoys(3000)
    quote = BANK_27_PARAGRAPHS[0] + BANK_27_PARAGRAPHS[3]  # 商业银行法 27: head and item (三)
    candidates = [*decoys[:1500], ("商业银行法第二十七条", COMMERCIAL_BANK_27), *decoys[1500:]]
    started = time.perf_counter()
    found = best_location(quote, candidates, limit=1)
    located = QuoteIndex(candidates).locate(quote, limit=1)
    assert time.perf_counter() - started < 30  # guards against pathological time only
    assert found[0][0] == located[0][0] == "商业银行法第二十七条"


def test_a_kept_index_finds_what_the_built_one_finds() -> None:
    """An index read back from its plain values (as a kept one is), before and after lookups
    unpacked some of its postings, locates and covers as the one built."""
    built = QuoteIndex(REAL_ARTICLES.items())
    recited = [text.split("\n")[-1] for text in REAL_ARTICLES.values()] + [LABOR_82_FIRST[:30]]
    grams = sorted(
        {text[i : i + 2] for text in REAL_ARTICLES.values() for i in range(len(text) - 1)}
    )
    fresh = QuoteIndex.from_plain(marshal.loads(marshal.dumps(built.to_plain())))
    expected = [built.locate(q) for q in recited]
    used = QuoteIndex.from_plain(marshal.loads(marshal.dumps(built.to_plain())))
    for kept in (fresh, used):
        assert [kept.locate(q) for q in recited] == expected
        assert [kept.locate_scores(q, min_score=0.0) for q in recited] == [
            built.locate_scores(q, min_score=0.0) for q in recited
        ]
        assert list(kept.coverage(grams)[1].items()) == list(built.coverage(grams)[1].items())
        assert [kept.is_common(g) for g in grams] == [built.is_common(g) for g in grams]


@given(st.text(alphabet=st.sampled_from("应当规定𠀀𡃁a1_"), max_size=30))
def test_bigram_codes_tell_bigrams_apart(text: str) -> None:
    """A text's bigram codes are its distinct bigrams (astral characters too), one code each,
    in the order they first occur."""
    bigrams = list(dict.fromkeys(map(add, text, text[1:])))
    assert list(quotes._gram_codes(text)) == [quotes._gram_code(g) for g in bigrams]
    assert len(set(quotes._gram_codes(text))) == len(bigrams)


@given(st.lists(st.text(alphabet=st.sampled_from("应当规定𠀀a1\ud800\udfff"), max_size=12)))
def test_packed_texts_are_the_utf_32_encoding(texts: list[str]) -> None:
    """Texts packed and read back through the codec's own functions are the bytes and texts
    str.encode and bytes.decode give (lone surrogates too, as surrogatepass lets them be)."""
    packed = quotes._PackedTexts.pack(texts)
    assert packed.data == "".join(texts).encode("utf-32-le", "surrogatepass")
    assert [packed[i] for i in range(len(texts))] == texts
    for text in texts:
        assert quotes._to_utf_32(text) == text.encode("utf-32-le", "surrogatepass")


def _first_best_run(quote: str, article: str) -> tuple[float, int, int]:
    """Every run of consecutive sentences scored: the first of the highest (score, first, last)."""
    runs = quotes._prepare(article)
    best = (0.0, 0, -1)
    for first in range(len(runs.bounds) - 1):
        for last in range(first, len(runs.bounds) - 1):
            text = runs.text[runs.bounds[first] : runs.bounds[last + 1]]
            score = Indel.normalized_similarity(quote, text)
            if score > best[0]:
                best = (score, first, last)
    return best


@given(st.sampled_from(sorted(REAL_ARTICLES.values())), st.data())
def test_the_best_run_is_the_first_of_the_highest_scores(article: str, data: st.DataObject) -> None:
    """The search for the best run of sentences (its bounds by length and by the longest common
    subsequence, and the shortcut for a quote that is a run word for word) finds the first run
    scoring highest among all of them."""
    runs = quotes._prepare(article)
    sentences = len(runs.bounds) - 1
    first = data.draw(st.integers(0, sentences - 1))
    last = data.draw(st.integers(first, sentences - 1))
    quote = runs.text[runs.bounds[first] : runs.bounds[last + 1]]
    cut = data.draw(st.integers(0, 3))
    quote = data.draw(st.sampled_from([quote, quote[cut:], quote[: len(quote) - cut] + "另有规定"]))
    expected = _first_best_run(quote, article)
    span = quotes._best_span(quote, runs)
    assert (span.score, span.first, span.last) == expected
    bounded = quotes._best_span(quote, runs, 0.0, LCSseq.similarity(quote, runs.text))
    assert (bounded.score, bounded.first, bounded.last) == expected


@given(st.lists(st.integers(0, 40), max_size=60, unique=True), st.lists(st.integers(-1, 45)))
def test_the_postings_table_finds_each_code_it_holds(codes: list[int], asked: list[int]) -> None:
    """Every code placed is found with its own posting (codes that share a first place, and
    probes running past the table's end, included); a code not placed is not found; a posting
    of more than `common` candidates is kept empty (a common bigram)."""
    postings = {code * 7: [code, code + 1][: code % 3] for code in codes}  # 7: many collisions
    table = quotes._Postings.build(postings, common=1)
    for code in [*postings, *(a * 7 for a in asked)]:
        place = table.place(code)
        if code not in postings:
            assert place == -1
            continue
        held = table.items[table.at[place] : table.at[place + 1]].tolist()
        assert held == (postings[code] if len(postings[code]) <= 1 else [])
    kept = quotes._Postings.from_plain(marshal.loads(marshal.dumps(table.to_plain())))
    assert [kept.place(code) for code in postings] == [table.place(code) for code in postings]


@given(st.text(alphabet=st.sampled_from("。；;！？!?：:\n 甲乙a，"), max_size=30))
def test_sentences_are_the_pieces_of_a_split_after_each_sentence_end(text: str) -> None:
    pieces = re.split(r"(?<=[。；;！？!?：:\n])", text)
    assert split_sentences(text) == [piece for piece in pieces if piece.strip()]


_LEGAL_WORDS = st.text(alphabet=st.sampled_from("应当规定本法人的第条款"), max_size=150)


@given(_LEGAL_WORDS, st.lists(_LEGAL_WORDS, max_size=9))
def test_common_lengths_are_each_texts_longest_common_subsequence(
    quote: str, texts: list[str]
) -> None:
    expected = [LCSseq.similarity(quote, text) if quote else 0 for text in texts]
    assert quotes._common_lengths(quote, texts) == expected


# Characters around the folded ones: their targets, the ideographic space, CJK, astral.
_NEAR_FOLDED = st.sampled_from(
    [chr(c) for c in HALF_WIDTH]
    + [chr(t) for t in HALF_WIDTH.values()]
    + ["\u3001", "\u3002", "\uff00", "\uff5f", "\uffe5", "法", "条", "\U0001f600", "\n"]
)


@given(st.lists(st.one_of(_NEAR_FOLDED, st.characters()), max_size=40).map("".join))
def test_quote_width_fold_is_the_translation(text: str) -> None:
    """The normalisation's width fold (each folded character replaced where it occurs) gives
    what `textnorm.fold_width`'s str.translate gives."""
    assert _fold_width(text) == fold_width(text)
