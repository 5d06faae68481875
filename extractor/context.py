"""Context resolution: which law each parsed chain cites, and its quote and claim.

- An explicit law (《title》, a bare or quoted name) is resolved through the lexicon: the
  canonical name where known, else the name as written.
- 本法/该法/同法/上述法律 … take the law cited or mentioned last before them (inside a
  recited article that is the law being recited).
- A bare run (第四十四条, ，第十四条) continues the law cited or mentioned last, if that
  was at most `MAX_CONTINUATION` characters before it; else it is no citation.
- List members after the first (第十九条、第二十一条; 第四项、第五项) are implicit; a 款/项
  alone takes the article (and 款) of the member before it.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from extractor.candidates import LAW_SUFFIX, Candidate, is_law_like
from extractor.errors import SpanParseError
from extractor.grammar import parse_law, parse_run
from extractor.lexicon import Lexicon
from extractor.models import Citation, Quote, Reference, Run, new_citation, new_reference
from extractor.quotes import find_claim, find_quote
from textnorm import strip_category
from textnorm.kept import kept_pattern

MAX_CONTINUATION = 800  # characters from the last citation to a bare 第…条 continuing it
_PREFIX_RE = kept_pattern(
    r"(?P<hint>原|旧|(?:\d{4}|[一二〇零○]{4})年(?:修正|修订|修改)?|修(?:订|正|改)前)(?:的|版)?$"
)
# What _PREFIX_RE can end with; a law right after one or after one and a line break (its $
# also matches before a final line break) may have a prefix.
_PREFIX_LAST_CHARS = "原旧年正订改前的版"
_PREFIX_NEXT_CHARS = _PREFIX_LAST_CHARS + "\n"
_LAW_SHAPE_RE = kept_pattern(rf"{LAW_SUFFIX}(?:[（(][一二三四五六七八九十]{{1,3}}[）)])?$")
_SENTENCE_ENDS = '。！？；!?;\n”"」'
_CLOSERS = '”"」』’'
_HTML_TAG_RE = re.compile(r"</?[a-zA-Z][^<>\n]{0,30}>")
_DASHED_RE = kept_pattern(r"^([^-－—]{2,})[-－—]([^-－—]{2,})$")
_PART_RE = kept_pattern(r"[\u4e00-\u9fff]{1,6}编")
_TRAILING_PART_RE = kept_pattern(r"[\u4e00-\u9fff]{2,6}编$")


def _ends_recitation(text: str, candidate: Candidate) -> bool:
    """Whether a citation starting here ends the recitation before it: one naming its law
    does, so does 该法/同法 … (the answer's words) and a bare 第…条 starting a sentence or line
    (the next recited article); 本法第…条 or 违反第十六条规定 inside a recited article do not."""
    if candidate.kind != "chain":
        return False
    if candidate.law_kind == "ref_word":  # statutes say 本法; 该法/同法/上述法律 is the answer
        return not text.startswith("本", candidate.start)
    if candidate.law_kind is not None:
        return True
    start = candidate.start
    while start > 0 and text[start - 1] in " \t\u3000\xa0【":
        start -= 1
    return start == 0 or text[start - 1] in _SENTENCE_ENDS


def _version_prefix(text: str, start: int) -> str | None:
    """A version qualifier written before the law: 原《合同法》, 2018年《公司法》."""
    last = start - 1
    if last > 0 and text[last] == "\n":  # a title at a line's start: its $ before the break
        last -= 1
    if last < 0 or text[last] not in _PREFIX_LAST_CHARS:  # most laws: no regex run
        return None
    match = _PREFIX_RE.search(text[max(0, start - 10) : start])
    return match.group("hint") if match else None


def _without_markup(name: str) -> str:
    """A written name without HTML tags, with &lt;/&gt; read as 〈〉."""
    if "<" in name or "&" in name:
        name = _HTML_TAG_RE.sub("", name).replace("&lt;", "〈").replace("&gt;", "〉")
    return name.strip()


def law_of(written: str, lexicon: Lexicon | None) -> str:
    """The law a written name designates, before the lexicon: 社会法-劳动法, 社会法类劳动法 and
    社会法类中的劳动法 → 劳动法 (a category before it), 民法典-物权编 and 民法典合同编 → 民法典
    (a part of the code)."""
    written = strip_category(written)
    # most names: no dash, no regex run
    dashed = (
        _DASHED_RE.match(written) if "-" in written or "－" in written or "—" in written else None
    )
    if dashed:
        left, right = dashed.groups()
        written = left if _PART_RE.fullmatch(right) else right
    part = _TRAILING_PART_RE.search(written) if written.endswith("编") else None
    if part and part.start() >= 2:
        whole = written[: part.start()]
        if (lexicon is not None and lexicon.resolve(whole)) or _LAW_SHAPE_RE.search(whole):
            written = whole
    return written


def _resolve(name: str, lexicon: Lexicon | None) -> str:
    return (lexicon.resolve(name) if lexicon is not None else None) or name


MEMO_LIMIT = 100_000  # written names kept per memo (answers repeat the same few)
_LAWS_WITHOUT_LEXICON: dict[str, tuple[str, str]] = {}


def _written_law(written: str, lexicon: Lexicon | None) -> tuple[str, str]:
    """(the name as written, markup left out; the law it designates), memoised per lexicon:
    answers write the same few names over and over."""
    memo = _LAWS_WITHOUT_LEXICON if lexicon is None else lexicon.written_laws
    known = memo.get(written)
    if known is None:
        name = _without_markup(written)
        known = (name, _resolve(law_of(name, lexicon), lexicon))
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
        memo[written] = known
    return known


def _mention_law(name: str, lexicon: Lexicon | None) -> str | None:
    """The law a lone 《title》 names, if it looks like a statute at all."""
    if not is_law_like(name):
        return None
    if lexicon is not None and (found := lexicon.resolve(name)):
        return found
    law = law_of(name, lexicon)  # 《社会法-劳动法》: the category dropped
    if law != name and lexicon is not None and (found := lexicon.resolve(law)):
        return found
    return law if _LAW_SHAPE_RE.search(law) else None


def _add_citations_of_chain(
    citations: list[Citation],
    text: str,
    run_start: int,
    run: Run,
    law: str | None,
    law_at: int | None,
    law_as_written: str | None,
    version_hint: str | None,
    quote: Quote | None,
) -> None:
    """Add to `citations` those of one run starting at `run_start`, its law written at `law_at`
    (None: a bare run); `law_as_written` is the name of an explicit law (None for 本法 …)."""
    previous: Reference | None = None
    # A run holds no sentence end, so its members share one claim.
    claim_end = run_start + run.end
    if quote is not None and text[quote.end : quote.end + 1] in _CLOSERS and quote.end >= claim_end:
        claim_end = quote.end + 1
    claim = find_claim(text, run_start if law_at is None else law_at, claim_end)
    for index, ref in enumerate(run.references):
        article, suffix, paragraph = ref.article, ref.article_suffix, ref.paragraph
        if article is None:  # a 款/项 alone: of the article (and 款) of the member before it
            if previous is None or previous.article is None:
                continue
            article, suffix = previous.article, previous.article_suffix
            paragraph = paragraph if paragraph is not None else previous.paragraph
            ref = new_reference(ref.start, ref.end, article, suffix, paragraph, ref.item, False)
        first = index == 0
        start = law_at if first and law_at is not None else run_start + ref.start
        end = run_start + ref.end
        citations.append(
            new_citation(
                text[start:end],
                start,
                end,
                law_as_written if first else None,
                law,
                not first or law_as_written is None,
                article,
                suffix,
                paragraph,
                ref.item,
                ref.range,
                version_hint,
                quote,
                claim,
            )
        )
        previous = ref


# Kinds of law part that name their law: a citation with one ends the recitation before it.
_NAMING_KINDS = ("title", "quoted", "name")


def resolve(text: str, candidates: list[Candidate], lexicon: Lexicon | None) -> list[Citation]:
    """Citations of all candidates, in order, with laws, quotes and claims resolved."""
    antecedent: str | None = None  # the law cited or mentioned last
    antecedent_at = -1  # where
    citations: list[Citation] = []
    recitation_ends = [
        candidate.start
        for candidate in candidates
        if candidate.law_kind in _NAMING_KINDS or _ends_recitation(text, candidate)
    ]
    written_laws = _LAWS_WITHOUT_LEXICON if lexicon is None else lexicon.written_laws
    for kind, start, end, name, name_end, _, run_start in candidates:
        if kind == "mention":
            law = _mention_law(name or "", lexicon)
            if law is not None:
                antecedent, antecedent_at = law, end
            continue
        try:
            mention = parse_law(text[start:run_start]) if start < run_start else None
            run = parse_run(text[run_start:end])
        except SpanParseError:
            continue
        version_hint = written = None
        if mention is None or mention.kind == "ref_word":
            if mention is None and start - antecedent_at > MAX_CONTINUATION:
                continue
            law = antecedent
            if mention is None and law is None:
                continue
        else:
            written = mention.text
            if mention.kind == "name" and name_end is not None:
                written = text[start:name_end]  # the lexicon's boundary
            written, law = written_laws.get(written) or _written_law(written, lexicon)
            version_hint = mention.version_hint or (
                _version_prefix(text, start)
                if start and text[start - 1] in _PREFIX_NEXT_CHARS
                else None
            )
        after = run_start + run.end
        following = bisect_right(recitation_ends, after)
        limit = recitation_ends[following] if following < len(recitation_ends) else len(text)
        quote = find_quote(text, after, limit, start)
        law_at = None if mention is None else start + mention.start
        _add_citations_of_chain(
            citations, text, run_start, run, law, law_at, written, version_hint, quote
        )
        if law is not None:
            antecedent, antecedent_at = law, end
    return citations
