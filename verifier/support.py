"""Support verdicts: does the cited article say what the answer states for it? (rule-based)

The stated content is the citation's quote (the extractor's recitation after 规定, 规定：, “…”,
never the answer's own sentence applying the article). It is judged against the cited article
and, for relative evidence, against every other article of the same law version:

1. **Distinctive content.** The content is normalised (verifier.textnorm_quote), its stock
   phrases (`STOCK_PHRASES`: 依法, 应当, 承担…责任 …) cut out, and its character bigrams kept;
   bigrams common in the law (the `QuoteIndex` of the version ignores them) carry no weight and
   the rest weigh by their rarity (idf) in the law. Fewer than `MIN_CONTENT_BIGRAMS` distinctive
   bigrams: `unknown` — stock phrases alone never count as support.
2. **Coverage and rank (relative evidence).** `coverage` is the share of that weight the
   cited article holds, `best_other` the highest share any other article of the version holds.
   `unsupported` needs clear evidence: another article holds at least `RANK_MARGIN` more (another
   article's content); or the content has no footing in the article (less than
   `UNSUPPORTED_COVERAGE` of its weight and a wording under `SUPPORTS_PARAPHRASE`); or weak
   evidence (under `WEAK_COVERAGE` and `WEAK_SCORE`) while the cited article is not clearly the
   best match of its law (by `BEST_MARGIN`) — neither of those two when the content defines the
   term the article defines (残疾人是指… under 第二条); or the quote check found the text elsewhere with a
   score of at least `CLEAR_SCORE`, `CLEAR_SCORE_MARGIN` above the cited passage, in an article
   that also holds more of the content's words. Otherwise the content is this article's rule,
   perhaps in the model's words with elements invented: `partly` at worst.
3. **Passage.** Otherwise the content is compared (`compare_quote`) with the article's runs of
   whole sentences and with each of its list items read into their lead-in (有下列情形之一的，
   劳动者可以解除劳动合同 + （一）未按照…的 → 未按照…的，劳动者可以解除劳动合同): one 款 or one 项
   is a subset of the article, not a mismatch. The best passage is the `evidence`.
4. **Differences.** A number or time limit the passage states otherwise (verifier.numbers),
   and a condition of the passage (a clause ending in 的, or a 但是/除外 exception) that the
   content leaves out, are `differences`.
5. **Verdict.** `supports` when there is no difference and the content is (nearly) the
   passage's wording (score >= `SUPPORTS_SCORE`) or holds `SUPPORTS_COVERAGE` of its
   distinctive wording with at least `SUPPORTS_CLAUSES` of its clauses found verbatim (a
   faithful abbreviation); otherwise `partly` (recognisably this article, something material
   changed, dropped or added).

`found_in` names another place only when it clearly explains the content better: an article
of the same version holding at least `CLEAR_COVERAGE` of the content's weight and
`CLEAR_MARGIN` more than the cited one, or a place the quote check found with a score of at
least `CLEAR_SCORE` and `CLEAR_SCORE_MARGIN` above the cited passage (the same article in
another version, another cited law).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from functools import lru_cache
from itertools import compress, filterfalse, islice
from operator import add, itemgetter
from weakref import WeakKeyDictionary

from rapidfuzz import fuzz

from legaldb import StatuteRepository
from legaldb.models import LawInfo, VersionInfo
from textnorm.kept import kept_pattern
from verifier.content import FOUND_IN_LIMIT, ArticleKey, compare_memoised, version_index
from verifier.memo import recall
from verifier.models import (
    NO_SUPPORT,
    Difference,
    FoundIn,
    QuoteCheck,
    Recital,
    Support,
    SupportVerdict,
    new_support,
)
from verifier.numbers import number_conflicts
from verifier.quotes import MATCH_SCORE, PARTIAL_SCORE, Comparison, quote_keys, quote_similarity
from verifier.textnorm_quote import normalize_for_compare

try:  # compiled (verifier/_support_scan.c, built by setup.py where it can be)
    from verifier import _support_scan
except ImportError:  # pragma: no cover - built wherever a compiler is
    _support_scan = None  # type: ignore[assignment]

STOCK_PHRASES: tuple[str, ...] = (
    "依照本法", "依照法律", "根据本法", "按照规定", "另有规定", "依照", "按照", "根据", "依据", "依法", "应当", "可以", "不得", "必须", "有权",
    "规定", "有关", "相关", "法律", "法规", "本法", "承担", "责任", "处罚", "追究", "给予",
    "国家", "人民政府", "主管部门", "部门", "机关", "单位", "组织", "个人", "其他", "公民",
    "合法权益", "权益", "权利", "义务", "行为", "情形", "情况", "下列", "之一", "进行", "采取",
    "措施", "保障", "保护", "管理", "工作", "制度", "加强", "建立", "健全", "负责", "实施",
    "当事人", "遵守", "相应",
)  # fmt: skip
"""Words that any article of any law may say; content made only of them supports nothing."""

MIN_CONTENT_BIGRAMS = 3
VERBATIM_SCORE = 0.95
UNSUPPORTED_COVERAGE = 0.25
WEAK_COVERAGE = 0.50
WEAK_SCORE = PARTIAL_SCORE
STOCK_FOUND_SCORE = 0.60
RANK_MARGIN = 0.05
BEST_MARGIN = 0.05
SUPPORTS_SCORE = MATCH_SCORE
SUPPORTS_COVERAGE = 0.80
SUPPORTS_CLAUSES = 0.50
SUPPORTS_PARAPHRASE = 0.60
CLEAR_COVERAGE = 0.60
CLEAR_MARGIN = 0.25
CLEAR_SCORE = 0.80
CLEAR_SCORE_MARGIN = 0.10
JUDGED_PER_REPOSITORY = 8192  # memoised verdicts (a few hundred bytes each)
CONDITION_FOUND = 80  # partial_ratio (0-100) at which a condition clause counts as stated

_JUDGED: WeakKeyDictionary[StatuteRepository, OrderedDict[tuple, Support]] = WeakKeyDictionary()
# Memoised coverages (a share per article holding any of the content: a few KB each); the
# repeats come from the same answer, one recitation stated for several articles.
COVERED_PER_REPOSITORY = 256
_COVERED: WeakKeyDictionary[
    StatuteRepository,
    OrderedDict[tuple[int, str], tuple[list[str], dict[tuple[ArticleKey, str], float] | None]],
] = WeakKeyDictionary()
_STOCK_LONGEST_FIRST = tuple(sorted(STOCK_PHRASES, key=len, reverse=True))
_STOCK = kept_pattern("|".join(_STOCK_LONGEST_FIRST))
_LIST_LEAD = kept_pattern(r"有?下列[^，,。；;：:、\n]{0,15}")
_ITEM_LINE = kept_pattern(r"^\s*[（(][一二三四五六七八九十]{1,3}[）)]\s*")
# 残疾人是指… / 本法所称残疾人，是指…: a definition, at the start of the content or of a sentence.
_DEFINITION = kept_pattern(
    r"(?:^|[。；;\n])\s*(?:本(?:法|条例|办法|规定|解释)所称)?(?P<term>[^，,。；;：:、\s]{2,12}?)[，,]?是指"
)
_CLAUSE = kept_pattern(r"[^，,。；;：:！？!?\n]+")
_CONDITION = kept_pattern(
    r"^(?:但|根据|依照|按照|经|未经|除|如果|凡)|除外$|(?<!下列)(?<!之一)(?:的|后|时)$"
)


def content_bigrams(normalised: str) -> frozenset[str]:
    """The character bigrams of a normalised text, stock phrases cut out first (compiled where
    verifier/_support_scan.c is built: the regular expression's split was nine tenths of it)."""
    if _support_scan is not None:
        return _support_scan.content_bigrams(normalised, _STOCK_LONGEST_FIRST)
    return _python_content_bigrams(normalised)


def _python_content_bigrams(normalised: str) -> frozenset[str]:
    """content_bigrams in Python: the reference of the compiled one, and its fallback."""
    grams: set[str] = set()
    for segment in _STOCK.split(normalised):
        grams.update(map(add, segment, segment[1:]))  # each character joined to the next
    return frozenset(grams)


@lru_cache(maxsize=16384)
def _stated_bigrams(quote: str) -> frozenset[str]:
    """content_bigrams of the quote's shortest normalised variant (memoised: one recitation is
    often stated for several citations, 第十九条、第二十条规定：…)."""
    return content_bigrams(min(quote_keys(quote), key=len))


@lru_cache(maxsize=16384)
def item_passages(article_text: str) -> tuple[str, ...]:
    """Each list item of the article read into its lead-in: the lead's 有下列情形之一的 replaced
    by the item (or the item appended to a lead without one), as one sentence."""
    if "（" not in article_text and "(" not in article_text:
        return ()  # no item: an item line opens with （ or ( (most articles; no line matched)
    passages: list[str] = []
    lead: str | None = None
    for line in article_text.split("\n"):
        item = _ITEM_LINE.match(line)
        if item is None:
            stripped = line.strip()
            lead = stripped[:-1] if stripped.endswith(("：", ":")) else None
            continue
        if lead is None:
            continue
        body = line[item.end() :].strip().rstrip("；;。")
        slot = _LIST_LEAD.search(lead)
        if slot is not None:
            joiner = "" if slot.end() == len(lead) or lead[slot.end()] in "，," else "，"
            passages.append(f"{lead[: slot.start()]}{body}{joiner}{lead[slot.end() :]}。")
        else:
            passages.append(f"{lead}：{body}。")
    return tuple(passages)


def _best_passage(quote: str, article_text: str) -> Comparison:
    best = compare_memoised(quote, article_text)
    if best.score >= SUPPORTS_SCORE:
        return best
    for passage in item_passages(article_text):
        # Exact whenever it is at least best.score (else lower): only a better passage is
        # compared in full, clause support and all.
        if quote_similarity(quote, passage, best.score) > best.score:
            best = compare_memoised(quote, passage)
    return best


def _conditions_left_out(content: str, passage: str) -> list[Difference]:
    """Conditions of the passage (…的, 但是…, …除外) that the content does not state."""
    return [
        Difference("condition", "", clause)
        for clause, key in _passage_conditions(passage)
        if len(key) <= len(content)
        and fuzz.partial_ratio(key, content, score_cutoff=CONDITION_FOUND) < CONDITION_FOUND
    ]


@lru_cache(maxsize=4096)
def _passage_conditions(passage: str) -> tuple[tuple[str, str], ...]:
    """(clause, comparison key) of each condition of the passage, in order (memoised: one
    article's passage is judged against many recitations)."""
    found = []
    for match in _CLAUSE.finditer(passage):
        clause = match.group().strip()
        if not _CONDITION.search(clause) or _ITEM_LINE.match(clause):
            continue  # a list item left out is a subset of the list, not a dropped condition
        key = normalize_for_compare(clause)
        if len(key) >= 4:
            found.append((clause, key))
    return tuple(found)


def _numbers_changed(quote: str, passage: str) -> list[Difference]:
    return [
        Difference("number", conflict.claim_surface, "、".join(conflict.article_surfaces))
        for conflict in number_conflicts(quote, passage)
    ]


def judge_support(repo: StatuteRepository, recital: Recital, quote_check: QuoteCheck) -> Support:
    """The support verdict of one citation's stated content (see the module docstring),
    memoised per repository (least recently used out): the same recitations recur across
    answers and reruns, and the verdict is a pure function of its inputs and the repository."""
    quote, article_text = recital.quote, recital.article_text
    law, version, number, suffix = recital.law, recital.version, recital.number, recital.suffix
    if not quote or not quote.strip() or article_text is None or law is None or version is None:
        return NO_SUPPORT
    return recall(
        _JUDGED,
        repo,
        # The quote check by its fields: a QuoteCheck's own hash and equality are Python
        # functions (a frozen dataclass's), called at every look-up.
        (
            version.id,
            number,
            suffix,
            quote,
            quote_check.verdict,
            quote_check.score,
            quote_check.found_in,
        ),
        JUDGED_PER_REPOSITORY,
        lambda: _judge(repo, quote, article_text, law, version, number, suffix, quote_check),
    )


def _judge(
    repo: StatuteRepository,
    quote: str,
    article_text: str,
    law: LawInfo,
    version: VersionInfo,
    number: int,
    suffix: str | None,
    quote_check: QuoteCheck,
) -> Support:
    grams = _stated_bigrams(quote)
    passage = _best_passage(quote, article_text)
    if len(grams) < MIN_CONTENT_BIGRAMS:
        return _stock_only(passage, grams, article_text)
    clear = tuple(
        place
        for place in quote_check.found_in
        if place.score >= CLEAR_SCORE and place.score >= passage.score + CLEAR_SCORE_MARGIN
    )
    coverage: float | None = None
    best_other: float | None = None
    if passage.score < VERBATIM_SCORE:
        distinctive, shares = _covered(repo, version.id, quote, grams)
        if shares is None:
            return _stock_only(passage, distinctive, article_text)
        cited = (number, suffix or None)
        article = repo.article(version.id, number, suffix)
        label = article.label if article is not None else ""  # "": no label, the keys walked
        coverage, top_other = _cited_and_top_other(shares, cited, label)
        best_other = round(top_other, 4)
        # Relative evidence: unsupported needs another article that holds the content better,
        # a clear location elsewhere, or content with no footing in the article (neither its
        # distinctive words nor its wording). Weak evidence is not enough when the cited article
        # is clearly the best match in its law: the content is its rule in the model's words.
        rival = best_other >= coverage + RANK_MARGIN
        best = coverage >= best_other + BEST_MARGIN
        no_footing = coverage < UNSUPPORTED_COVERAGE and passage.score < SUPPORTS_PARAPHRASE
        weak = coverage < WEAK_COVERAGE and passage.score < WEAK_SCORE and not best
        # A better wording elsewhere is not clear when the cited article holds the content's
        # distinctive words as well as any other (near-identical articles): a changed element.
        elsewhere = coverage < best_other and any(p.where != "other_version" for p in clear)
        # A definition of the term the article defines is the article's definition in the
        # model's words, however little of its wording it keeps (残疾人是指… under 第二条).
        lacking = (no_footing or weak) and not _defines_its_term(quote, article_text)
        if rival or elsewhere or lacking:
            better = tuple(
                FoundIn(law.name, label, version.label, round(share, 4), "same_law")
                for share, label in _clearly_better(shares, cited, coverage, top_other)
            )
            places = {
                (p.law, p.article_label, p.version_label): p for p in reversed(clear + better)
            }
            found_in = tuple(sorted(places.values(), key=lambda p: -p.score))[:FOUND_IN_LIMIT]
            return _support("unsupported", passage, coverage, best_other, (), found_in)
    differences = tuple(
        _numbers_changed(quote, passage.matched or article_text)
        + _conditions_left_out(normalize_for_compare(quote), passage.matched)
    )
    faithful = passage.score >= SUPPORTS_SCORE or (
        coverage is not None
        and coverage >= SUPPORTS_COVERAGE
        and (passage.support >= SUPPORTS_CLAUSES or passage.score >= SUPPORTS_PARAPHRASE)
    )
    # A text another version of the article holds better is that version's wording: partly.
    verdict: SupportVerdict = "supports" if faithful and not (differences or clear) else "partly"
    return _support(verdict, passage, coverage, best_other, differences, clear)


def _covered(
    repo: StatuteRepository, version_id: int, quote: str, grams: frozenset[str]
) -> tuple[list[str], dict[tuple[ArticleKey, str], float] | None]:
    """The content's distinctive bigrams in the version (the first MIN_CONTENT_BIGRAMS found)
    and, when it has that many, each article's share of its weight (`QuoteIndex.coverage`);
    None when it has fewer. Memoised per repository by version and quote (grams are the
    quote's): one recitation stated for several articles (第十九条、第二十条规定：…) is covered
    once (2,398 distinct of the 2,940 coverages of the flzx answers)."""

    def computed() -> tuple[list[str], dict[tuple[ArticleKey, str], float] | None]:
        index = version_index(repo, version_id)
        # Enough distinctive bigrams? is_common is asked until MIN_CONTENT_BIGRAMS are found
        # (it was a sixth of support asked of every bigram); coverage ignores the common ones.
        distinctive = list(islice(filterfalse(index.is_common, grams), MIN_CONTENT_BIGRAMS))
        if len(distinctive) < MIN_CONTENT_BIGRAMS:
            return distinctive, None
        return distinctive, index.coverage(grams)[1]

    return recall(_COVERED, repo, (version_id, quote), COVERED_PER_REPOSITORY, computed)


def _cited_and_top_other(
    shares: dict[tuple[ArticleKey, str], float], cited: ArticleKey, label: str
) -> tuple[float, float]:
    """The cited article's share rounded to 4 places (summed in the index's order, should a
    key repeat) and the highest share of any other article (0.0 when none holds any).

    The shares may name every article of the law: the cited one is looked up under its key
    in the index (its number and suffix, and its label), the best of the others taken by max()
    in C. Half the time the cited article holds no share (its share is then 0.0): its key is
    looked for among the articles' keys in C, and only when some article has it
    under another label are the shares walked one by one. Where verifier/_support_scan.c is
    built, both walks are one pass over the values as doubles (`top_other`: no float compared
    through the object protocol), the same value found."""
    share = shares.get((cited, label))
    if _support_scan is not None:  # the same walks compiled (None: one it leaves to Python)
        top = _support_scan.top_other(shares, cited, share)
        if top is not None:
            return (0.0 if share is None else round(share, 4)), top
    if share is not None:
        others = shares.copy()
        del others[cited, label]
        return round(share, 4), max(others.values(), default=0.0)
    if cited not in map(itemgetter(0), shares):
        return 0.0, max(shares.values(), default=0.0)
    held = []
    top_other = 0.0
    for (key, _), other in shares.items():
        if key == cited:
            held.append(other)
        elif other > top_other:
            top_other = other
    return round(sum(held, 0.0), 4), top_other


def _clearly_better(
    shares: dict[tuple[ArticleKey, str], float],
    cited: ArticleKey,
    coverage: float,
    top_other: float,
) -> list[tuple[float, str]]:
    """(share, label) of the other articles holding at least CLEAR_COVERAGE of the content and
    CLEAR_MARGIN more than the cited one, highest first (none when even the top one does not)."""
    if top_other < CLEAR_COVERAGE or top_other < coverage + CLEAR_MARGIN:
        return []
    # The shares at or above both bars picked in C (`threshold <= share`), the few left
    # walked in Python: the same items in the same order.
    threshold = max(CLEAR_COVERAGE, coverage + CLEAR_MARGIN)
    high = compress(shares.items(), map(threshold.__le__, shares.values()))
    return sorted(
        ((share, label) for (key, label), share in high if key != cited),
        reverse=True,
    )


def _defines_its_term(quote: str, article_text: str) -> bool:
    """Whether the content opens by defining a term that the article defines too."""
    if "是指" not in quote:
        return False  # no definition: the pattern needs 是指 (a test in plain str, not a match)
    stated = _DEFINITION.match(quote.strip())
    return stated is not None and stated["term"] in {
        found["term"] for found in _DEFINITION.finditer(article_text)
    }


def _stock_only(passage: Comparison, grams: Iterable[str], article_text: str) -> Support:
    """Content made of stock phrases and the law's common words states no rule of its own: it
    never supports. It is unknown when the article says as much (对方应当承担违约责任 under an
    article on 违约责任: its few own words are there, or the wording is close), unsupported when
    the article holds none of its own words and little of its wording."""
    article = normalize_for_compare(article_text)
    if passage.score >= STOCK_FOUND_SCORE or any(gram in article for gram in grams):
        return Support("unknown", evidence=passage.matched, score=round(passage.score, 4))
    return _support("unsupported", passage, None, None, (), ())


def _support(
    verdict: SupportVerdict,
    passage: Comparison,
    coverage: float | None,
    best_other: float | None,
    differences: tuple[Difference, ...],
    found_in: tuple[FoundIn, ...],
) -> Support:
    return new_support(
        verdict, passage.matched, round(passage.score, 4), coverage, best_other, differences,
        found_in,
    )  # fmt: skip
