"""Quote and claim spans: the article text an answer gives, and the sentence a citation backs.

A quote follows the citation: 规定：“…” (the marks excluded), 规定：…, 规定，…, 第X条：…, or
the text running straight after the number (《劳动合同法》第四十七条 经济补偿按…). An unquoted
recitation ends where the answer turns to its own comment (因此 …), at a blank line, or where
the next citation starts (the labelling conventions of ../shared/eval/README.md).
"""

from __future__ import annotations

from collections.abc import Callable

from extractor.models import Quote, Span, new_span
from textnorm.kept import kept_pattern

MAX_QUOTE = 5000  # characters; degenerate answers repeat one phrase for pages

# What may stand between the citation and its content.
# Every part is optional, so the first way through always reaches the end and nothing is ever
# given back: the parts are possessive (`?+`, `*+`), which spares the engine keeping the
# places it could go back to (the same matches, a quarter fewer instructions).
_LEAD_RE = kept_pattern(
    r"[ \t\u3000\xa0】\]]*+(?:的|之)?+(?:相关|有关)?+(?:也|还|亦|均|都)?+(?:明确|具体|中|里)?+"
    r"(?P<verb>规定如下|规定了|规定|指出|提到|载明|写道|明确|表述为|内容为|内容如下|如下)?+"
    r"[ \t\u3000\xa0]*+(?P<mark>[：:，,]?+)[ \t\u3000\xa0\n]*+(?:(?<=[，,])规定了?)?+"
)
# After "规定，" the answer speaks, not the article: 如果您…, 您可以… (words, tested with
# str.startswith and str.endswith: a regex call costs more than the test).
_ANSWER_VOICE = ("如果您", "如果你", "您", "你", "我", "因此", "所以", "建议")
# 按照《…》第X条的规定，办理… gives an instruction, not the article's text.
_INSTRUCTION = ("按照", "依照", "遵照")
# 依照《…》第X条解除劳动合同的，… applies the article in the answer's own sentence.
_APPLYING = ("按照", "依照", "遵照", "依据", "根据")
# A recitation that lists items or opens with a colon runs on past its first sentence: the
# first sentence end or recital sign (：, （一）) tells which, in one search. The pattern opens
# with the set of its first characters, so that a search skips from one to the next (a
# pattern opening with an alternation is tried at every character).
_SENTENCE_ENDS = "。！？!?"
# How far past its mark a comment's match reaches at most (a tag: < and 33 characters); only
# a tag can hold a sentence end, so a comment starting before one is matched within this.
_COMMENT_REACH = 34
_FIRST_END_OR_SIGN_RE = kept_pattern(
    r"[。！？!?：:（(](?:(?<=[。！？!?：:])|(?<=[（(])[一二三四五六七八九十]{1,3}[）)])"
)
_OPEN_QUOTES = {"“": "”", '"': '"', "「": "」", "『": "』", "‘": "’"}
# Text straight after the number that is the answer's own words, not the article's (tested
# with str.startswith: what a pattern of these words would match at the start).
_NOT_CONTENT = (
    *("的", "等", "中", "和", "及", "与", "或", "也", "都", "则", "所", "之", "关于", "是", "就"),
    *("还", "并", "才", "来", "里", "内", "即", "进行", "作出", "相关", "有关", "规定", "提到"),
    *("指出", "明确", "要求", "来看", "而言", "可知", "可以看出"),
    *"第、，,。；;：:！？!?）)】]”\"'",
)
_HEADING_RE = kept_pattern(
    r"(?:【[^】\n]{1,40}】|\[[^\]\n]{1,40}\]|[\u4e00-\u9fff、]{2,20}罪[：:])[ \t\u3000\xa0,，:：]*"
)
# Where the answer turns to its own comment after a recitation. The match starts by taking
# the mark a comment starts at, so that the engine skips from one such mark to the next (a
# leading look-ahead would have it try the whole pattern at every character); each branch
# then looks back at the mark it starts with. Most marks are commas in the middle of a
# recitation: the look-ahead for a character that some branch can go on with (spacing, a
# line break, <eoa> or a tag, the first character of a comment word) turns them down before
# the branches are tried.
_COMMENT_WORDS = (
    "因此|所以|因而|故而|综上|由此可见|可见|据此|这意味着|这表明|这说明|也就是说|换句话说|简而言之|"
    "根据这一规定|根据该规定|根据此规定|根据上述|根据以上|依据上述|按照上述|基于此|在本案中|在此案中|"
    "在您的情况下|在你的情况下|在这种情况下|在这种情形下|如果您|如果你|您可以|你可以|建议|总之|"
    "需要注意|请注意|值得注意|具体来说|所以说|"
    "回答|答：|法律依据|相关法条|参考法条"
)
_PROMPT_WORDS = "请你回答|请回答|场景:|场景："
# After a comma, only these turn to a comment (in _COMMENT_WORDS too).
_COMMA_WORDS = "因此|所以|因而|综上"
_COMMENT_NEXT = "".join(
    sorted({word[0] for word in f"{_COMMENT_WORDS}|{_PROMPT_WORDS}".split("|")})
)
_COMMENT_RE = kept_pattern(
    rf"[。！？!?；;，,\n<](?=[ \t\u3000\xa0\n{_COMMENT_NEXT}e/a-zA-Z])"
    rf"(?:(?:(?<=[。！？!?；;])|(?<=[，,])(?={_COMMA_WORDS}))[ \t\u3000\xa0]*(?={_COMMENT_WORDS})"
    r"|(?<=\n)[ \t\u3000\xa0]*\n|(?<=<)eoa>|(?<=<)/?[a-zA-Z][^<>\n]{0,30}>"
    # a one-shot prompt the model echoes after its answer
    rf"|(?<=\n)[ \t\u3000\xa0]*(?={_PROMPT_WORDS}))"
)
# A numbered list opening a line (1. / （一） / 一、): after a lead-in ending in a colon
# (…需要满足以下条件：), the list that follows a blank line is still the recitation.
_LIST_LINE_RE = kept_pattern(
    r"[ \t\u3000\xa0]*(?:\d{1,2}[.、．](?!\d)|[（(][一二三四五六七八九十]{1,3}[）)]|[一二三四五六七八九十]{1,3}、)"
)
# What a numbered line can start with besides a decimal digit (\d: str.isdecimal).
_LIST_LINE_FIRST = " \t\u3000\xa0（(一二三四五六七八九十"
_TRAILING = " \t\u3000\xa0\n。；;，,"
_CLAIM_BODY_RE = kept_pattern("[^。！？；!?;\n]*+")
MAX_CLAIM_SIDE = 400  # characters: a claim is one sentence, not a page
# A claim's right side: its body (at most MAX_CLAIM_SIDE characters) and the 。！？ ending it.
_CLAIM_TO_END_RE = kept_pattern(f"[^。！？；!?;\n]{{0,{MAX_CLAIM_SIDE}}}+[。！？!?]?+")


def _opens_list(text: str, at: int) -> bool:
    """Whether a numbered list item opens at `at` (_LIST_LINE_RE), its first character
    tested before the pattern is run (most recitations start with neither)."""
    first = text[at : at + 1]
    if not first or (first not in _LIST_LINE_FIRST and not first.isdecimal()):
        return False
    return _LIST_LINE_RE.match(text, at) is not None


def _heading_end(text: str, start: int) -> int:
    """Where a heading at `start` (_HEADING_RE: 【…】, […], …罪：) ends; `start` if none. The
    pattern is run only where one can start: at 【 or [, or with 罪 close enough."""
    if text[start : start + 1] in ("【", "[") or text.find("罪", start + 2, start + 21) >= 0:
        heading = _HEADING_RE.match(text, start)
        if heading:
            return heading.end()
    return start


def _closing(text: str, open_at: int, limit: int) -> int | None:
    """Index of the mark closing the quote opened at `open_at` (nested “” counted)."""
    opener = text[open_at]
    closer = _OPEN_QUOTES[opener]
    stop = min(limit, open_at + 1 + MAX_QUOTE)
    position = open_at + 1
    depth = 0
    while (close := text.find(closer, position, stop)) >= 0:
        nested = text.find(opener, position, close) if opener != closer else -1
        if nested >= 0:  # an inner quote opens before this mark
            depth += 1
            position = nested + 1
        elif depth == 0:
            return close
        else:
            depth -= 1
            position = close + 1
    return None


def find_quote(text: str, after: int, limit: int, cited_at: int | None = None) -> Quote | None:
    """The content an answer gives for the citation ending at `after`, not past `limit`.

    `cited_at` is where the citation (with its law) starts: after 按照/依照 a "，" opens the
    answer's instruction, not the article's text. After "，" a recitation is one sentence
    unless it lists items or holds a colon (…下列情形之一的：(一)…).
    """
    return _quote(text, after, limit, cited_at, _QUOTE_WORD_LISTS, new_span, Quote)


def _python_quote(
    text: str,
    after: int,
    limit: int,
    cited_at: int | None,
    words: object,
    make: Callable[[type[Quote], str, int, int], Quote],
    cls: type[Quote],
) -> Quote | None:
    """find_quote's Quote, make(cls, …) of _quote_span's bounds (`words`: the compiled
    finder's lists)."""
    span = _quote_span(text, after, limit, cited_at, words)
    if span is None:
        return None
    start, end = span
    return make(cls, text[start:end], start, end)


def _python_quote_span(
    text: str, after: int, limit: int, cited_at: int | None, *words: tuple[str, ...]
) -> tuple[int, int] | None:
    """(start, end) of find_quote's content, or None (the word lists, which the compiled
    finder reads, are this module's own)."""
    start, verb, mark = _lead(text, after)
    if start >= limit or start >= len(text):
        return None
    first = text[start]
    if first in _OPEN_QUOTES and (mark or verb or start == after):
        close = _closing(text, start, len(text))
        if close is not None and close > start + 1:
            return start + 1, close
        start += 1
        first = text[start : start + 1]
    elif not mark and (
        verb
        or "\n" in text[after:start]
        or text.startswith(_NOT_CONTENT, start)
        or (
            cited_at is not None
            and text.endswith(_APPLYING, cited_at - 2 if cited_at > 2 else 0, cited_at)
        )
    ):
        return None
    comma = mark == "，" or mark == ","
    if comma and (
        text.startswith(_ANSWER_VOICE, start)
        or (
            cited_at is not None
            and text.endswith(_INSTRUCTION, cited_at - 2 if cited_at > 2 else 0, cited_at)
        )
    ):
        return None
    heading_end = _heading_end(text, start)
    if heading_end != start:
        start = heading_end
        first = text[start : start + 1]
    end = start + MAX_QUOTE  # min(limit, len(text), start + MAX_QUOTE) without the call
    if end > limit:
        end = limit
    if end > len(text):
        end = len(text)
    # After "，" the recitation ends at its first sentence end unless a recital sign comes
    # first: a comment starting after that end cannot move it, so none is looked for there.
    sentence_end = _first_sentence_end(text, start, end) if comma else None
    search_end = end if sentence_end is None else min(end, sentence_end + _COMMENT_REACH)
    comment = _comment(text, start, search_end, *_COMMENT_WORD_LISTS)
    in_list = (
        first != ""
        and (first in _LIST_LINE_FIRST or first.isdecimal())
        and _opens_list(text, start)
    )
    while comment and _continues_as_list(text, start, comment, in_list):
        in_list = True
        comment = _comment(text, comment[1], search_end, *_COMMENT_WORD_LISTS)
    if sentence_end is not None:
        end = comment[0] if comment and comment[0] < sentence_end else sentence_end + 1
    elif comment:
        end = comment[0] + (1 if text[comment[0]] in _SENTENCE_ENDS else 0)
    elif end == limit:
        # The next citation starts here: the recitation ends with the sentence before it.
        sentence = _sentence_start(text, start, end)
        if sentence > start:
            end = sentence
    content = text[start:end].rstrip(_TRAILING)  # the marks and spacing at its end left out
    if len(content) < 2:
        return None
    return start, start + len(content)


def _first_sentence_end(text: str, start: int, end: int) -> int | None:
    """Where the first sentence end (。！？) of text[start:end] is, unless a recital sign (：,
    （一）) comes before it: a recitation after "，" ends there (None: it runs on)."""
    first = _FIRST_END_OR_SIGN_RE.search(text, start, end)
    if first is not None and text[first.start()] in _SENTENCE_ENDS:
        return first.start()
    return None


def _continues_as_list(text: str, start: int, comment: tuple[int, int], in_list: bool) -> bool:
    """A blank line before an item of a numbered list that a lead-in ending in a colon opened
    (or that is already running): no comment, the recitation goes on."""
    return (
        text.count("\n", *comment) >= 2
        and _opens_list(text, comment[1])
        and (in_list or text[start : comment[0]].rstrip(" \t\u3000\xa0").endswith(("：", ":")))
    )


def find_claim(text: str, start: int, end: int) -> Span:
    """The sentence around [start, end): split on 。！？； and line breaks (at most
    `MAX_CLAIM_SIDE` characters each side, so a text without any stays linear)."""
    return _claim(text, start, end, new_span, Span)


def _python_claim(
    text: str,
    start: int,
    end: int,
    make: Callable[[type[Span], str, int, int], Span],
    cls: type[Span],
) -> Span:
    """find_claim's Span, make(cls, …) of _claim_bounds's bounds."""
    left, right = _claim_bounds(text, start, end)
    return make(cls, text[left:right], left, right)


def _python_comment(
    text: str, start: int, end: int, *words: tuple[str, ...]
) -> tuple[int, int] | None:
    """(start, end) of _COMMENT_RE's first match in text[start:end], or None (the word lists,
    which the compiled finder reads, are the pattern's own)."""
    comment = _COMMENT_RE.search(text, start, end)
    return None if comment is None else comment.span()


def _python_lead(text: str, after: int) -> tuple[int, bool, str]:
    """(end, verb, mark) of the lead-in at `after` (_LEAD_RE): where it ends, whether it holds
    a verb (规定, 指出 …), its mark (：:，, or "")."""
    lead = _LEAD_RE.match(text, after)
    verb, mark = lead.groups()  # type: ignore[union-attr]  # the pattern matches ""
    return lead.end(), verb is not None, mark  # type: ignore[union-attr]


def _python_sentence_start(text: str, floor: int, end: int) -> int:
    """The position after the last sentence end (。！？；!?; or a line break) of
    text[floor:end], or `floor`: the window looked at backwards, with an anchored match."""
    body = _CLAIM_BODY_RE.match(text[floor:end][::-1])
    return end - body.end()  # type: ignore[union-attr]  # the pattern matches ""


def _python_claim_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """(left, right) of the claim around text[start:end]: back to the last sentence end before
    `start`, on to the first one at or after `end` (its 。！？ kept), at most `MAX_CLAIM_SIDE`
    characters each side, the spacing after the left end left out."""
    left = _python_sentence_start(
        text, start - MAX_CLAIM_SIDE if start > MAX_CLAIM_SIDE else 0, start
    )
    # Up to the first 。！？； or line break (。！？ kept) within MAX_CLAIM_SIDE characters, or
    # the character right after them if it is 。！？: one anchored match.
    after = _CLAIM_TO_END_RE.match(text, end, end + MAX_CLAIM_SIDE + 1)
    right = after.end()  # type: ignore[union-attr]  # the pattern matches ""
    while left < right and text[left] in " \t\u3000\xa0":
        left += 1
    return left, right


try:  # the bounds compiled (extractor/_quote_bounds.c, built by setup.py where it can be)
    from extractor import _quote_bounds
except ImportError:  # pragma: no cover - a build without a C compiler: the patterns
    _quote_bounds = None  # type: ignore[assignment]

# The compiled finders test the same characters over the same windows, in the patterns' order:
# the same positions.
_sentence_start: Callable[[str, int, int], int] = (
    _python_sentence_start if _quote_bounds is None else _quote_bounds.sentence_start
)
# The words the compiled comment finder looks for: _COMMENT_RE's, as lists.
_COMMENT_WORD_LISTS = tuple(
    tuple(words.split("|")) for words in (_COMMENT_WORDS, _COMMA_WORDS, _PROMPT_WORDS)
)
_comment: Callable[..., tuple[int, int] | None] = (
    _python_comment if _quote_bounds is None else _quote_bounds.comment
)
_lead: Callable[[str, int], tuple[int, bool, str]] = (
    _python_lead if _quote_bounds is None else _quote_bounds.lead
)
# The words the compiled quote finder reads (_COMMENT_WORD_LISTS and the lists above), in
# _quote_bounds.c's order.
_QUOTE_WORD_LISTS = (_ANSWER_VOICE, _INSTRUCTION, _APPLYING, _NOT_CONTENT, *_COMMENT_WORD_LISTS)
_quote_span: Callable[..., tuple[int, int] | None] = (
    _python_quote_span if _quote_bounds is None else _quote_bounds.quote_span
)
_claim_bounds: Callable[[str, int, int], tuple[int, int]] = (
    _python_claim_bounds if _quote_bounds is None else _quote_bounds.claim_bounds
)
# The Quote and the claim's Span made where their bounds are found, by models.new_span (the
# compiled maker of extractor/_slotted.c where it is built) called from the compiled module.
_quote: Callable[..., Quote | None] = (
    _python_quote if _quote_bounds is None else _quote_bounds.quote
)
_claim: Callable[..., Span] = _python_claim if _quote_bounds is None else _quote_bounds.claim
