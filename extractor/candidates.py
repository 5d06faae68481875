"""The pre-scan: one regular expression finds the spans the grammar then parses.

A candidate is either a chain — an optional law part (《title》, “name”, 本法 …), a gap (的,
spaces, 第二章 …) and a run of references (第…条…款…项, lists, ranges) — or a lone 《title》
(a law mentioned without an article, which 本法/该法 and continuations may refer to later).
Bare names (劳动合同法第八十二条) cannot be found going forward, so for a run with no law part
the text just before it is looked up in the lexicon, then tried as a plausible name.

Every repetition in the pattern is bounded or over a single character class, and no two
alternatives can both consume the same text at length, so the scan stays linear.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from extractor.lexicon import PRC_PREFIX, Lexicon
from textnorm import strip_category
from textnorm.kept import kept_pattern

# ---------------------------------------------------------------- pieces of the pattern
# Spacing and numerals are possessive (`*+`, `{1,8}+`): what follows them never starts with a
# space or a numeral, so giving characters back could not lead to a match, only to retries.
_S = r"[ \t\u3000\xa0]*+"
_N = r"(?:[0-9０-９]{1,5}+|[零〇一二两三四五六七八九十百千]{1,8}+)"
_ITEM_N = r"(?:[0-9０-９]{1,3}|[一二三四五六七八九十]{1,3})"
# 条 used as a measure word (第三条肋骨, 第二条路) is not an article.
_NOT_ARTICLE = (
    r"(?!肋|路|街|河|线|鱼|狗|腿|船|短信|信息|消息|微博|评论|建议|理由|途径|出路|人命|命)"
)
# What follows 第 and the number in an article (第五条之一), a range (第五至第九条) and a compact
# list (第五、六条): a run's member is 第 and a number, matched once, then one of these.
_ARTICLE_TAIL = rf"{_S}条{_NOT_ARTICLE}(?:{_S}之[一二三四五六七八九十]{{1,3}})?"
_LIST_SEP = rf"{_S}[、，,和及]{_S}"  # inside one 第…款/项/条: 第二、三款, 第十三、十四条
# A list of 款 or 项 numbers shares one 第…款/项: 第二、三款, 第一、二项, 第（一）、（二）项.
_PARAGRAPH = rf"第{_S}{_N}(?:{_LIST_SEP}{_N}){{0,10}}{_S}款"
_PAREN_N = rf"[（(]{_S}{_ITEM_N}{_S}[）)]"
_ITEM = (
    rf"第{_S}(?:{_N}(?:{_LIST_SEP}{_N}){{0,10}}|{_PAREN_N}(?:{_LIST_SEP}{_PAREN_N}){{0,10}}){_S}项"
)
_ITEMS = rf"{_ITEM}(?:{_S}(?:至|到){_S}{_ITEM})?"  # 第一项至第三项
_PARTS = rf"(?:{_S}{_PARAGRAPH})?(?:{_S}{_ITEMS})?"
# After 、 a list member may drop its 第: 第十七条、十九条 (never after a comma: 第五条，三条…).
_BARE_ARTICLE = rf"{_N}{_ARTICLE_TAIL}{_PARTS}"
_RANGE_TAIL = rf"{_S}(?:条{_S})?(?:至|到|[-－—–~～]){_S}(?:第{_S})?{_N}{_S}条{_NOT_ARTICLE}"
# 第十三、十四、二十一条: several article numbers sharing one 第…条.
_COMPACT_TAIL = rf"(?:{_LIST_SEP}{_N}){{1,10}}{_S}条{_NOT_ARTICLE}"
_ARTICLES = rf"第{_S}{_N}(?:{_RANGE_TAIL}|{_COMPACT_TAIL}|{_ARTICLE_TAIL}{_PARTS})"
_MEMBER = rf"(?:{_ARTICLES}|{_PARAGRAPH}(?:{_S}{_ITEMS})?|{_ITEMS})"
_SEP = rf"{_S}(?:[、，,]|以及|和|及|与|或者|或){_S}"
MAX_MEMBERS = 40  # a longer list is cut into runs of this size (one parse each, cached)
RUN = (
    rf"{_ARTICLES}"
    rf"(?:{_SEP}{_MEMBER}|{_S}、{_S}{_BARE_ARTICLE}){{0,{MAX_MEMBERS}}}"
)

LAW_SUFFIXES = (
    *("法典", "法", "条例", "规定", "办法", "解释", "决定", "细则", "规则", "通则", "总则", "标准"),
    *("意见", "批复", "公约", "纲要", "规范", "规程", "准则", "措施", "答复", "通知", "修正案"),
)
LAW_SUFFIX = f"(?:{'|'.join(LAW_SUFFIXES)})"
# Up to 100 characters or inner titles (one level). A title's end is fixed by its text, so the
# group is atomic, and the common title without an inner one is matched in one sweep first.
TITLE = r"(?>《[^《》\n]{1,100}+》|《(?:[^《》\n]|《[^《》\n]{0,60}》){1,100}》)"
_TITLE_TAIL = (
    r"(?:若干问题的(?:解释|规定|意见)|[\u4e00-\u9fff]{0,8}?编?的解释|实施(?:条例|细则|办法|意见)"
    r"|司法解释|解释)(?:[（(][一二三四五六七八九十]{1,3}[）)])?"
)
_NOTE = r"[（(][^（）()\n]{1,30}[）)]"
# “name” or, with ASCII quotes as title marks, "name": "中华人民共和国公司法"第一百四十七条.
# Most “ open a recited article, not a name: the look-ahead for the closing mark within 41
# characters (38 and the longest suffix) fails those at once, where the name's pattern tried
# every suffix at each of the 38 characters it gave back.
_QUOTED_NAME = (
    rf"(?:“(?=[^“”\n]{{0,41}}+”)[^“”\n]{{0,38}}{LAW_SUFFIX}”"
    rf"|\"(?=[^\"\n]{{0,41}}+\")[^\"\n]{{0,38}}{LAW_SUFFIX}\")"
)
REF_WORDS = (
    "本法|该法|同法|此法|上述法律|前述法律|上述法|该条例|本条例|此条例|该规定|本规定"
    "|该司法解释|本司法解释|上述司法解释|上述规定|前述规定|上述条例|上述解释|上述办法"
    "|该解释|本解释|该办法|本办法|该细则|本细则|该决定|本决定"
)
_HTML = r"</?[a-zA-Z][^<>\n]{0,30}>"
_DIVISION = rf"第{_S}{_N}{_S}[编章节](?:{_S}(?:(?!第)[\u4e00-\u9fff]){{1,12}})?"
# A part of a code named after the law (民法典合同编, 民法典-物权编) is a gap too.
_PART_NAME = r"[-－—]?[\u4e00-\u9fff]{2,6}编"
# The ref words' first characters are common (合同, 本人, 上海: 27,000 in the development
# answers against 10,000 candidates), and a failed try of the candidate costs as much as a
# short match: a ref word's first character goes on only where its second may follow.
_REF_SECOND_CHARS = "".join(sorted({word[1] for word in REF_WORDS.split("|")}))
_FIRST_CHARS = '第《“"' + "".join(sorted({word[0] for word in REF_WORDS.split("|")}))


# A title tail (_TITLE_TAIL: 若干问题的…, …的解释, 实施…) cannot match without one of 若释施, a
# division or part of a code (_DIVISION, _PART_NAME) without one of 编章节: an answer holding
# none of them is scanned without trying those at every title and gap (most answers: 86% hold
# none of 若释施, 90% none of 编章节). Single characters: `in` finds one with memchr.
def _scan_pattern(title_tails: bool, divisions: bool) -> str:
    """The pre-scan's pattern, without the title tails or the divisions and parts of a code
    where told (they cannot match in the text it is for: the same matches, less work).

    It opens with the set of characters a candidate can start with, so that the engine skips
    from one such character to the next (a pattern opening with a group or a look-ahead is
    tried at every character); the candidate is then matched from that character, inside a
    look-behind, as the group `candidate`. A match's own span is that one character.
    """
    division = f"|{_DIVISION}|{_PART_NAME}" if divisions else ""
    gap_words = rf"的|中|【|总则|分则|附则|{_HTML}{division}"
    gap_item = rf"(?:[\s\u3000\xa0*]+|{gap_words})"
    # A ref word stands on its run's line: 劳动合同法⏎第六条 is a name on its own line (see
    # name_apart), not 同法 followed by a run.
    line_gap_item = rf"(?:[ \t\u3000\xa0*]+|{gap_words})"
    title_tail = rf"(?:{_S}{_TITLE_TAIL})?" if title_tails else ""
    law = (
        rf"(?:(?:(?P<title>{TITLE}){title_tail}|(?P<quoted>{_QUOTED_NAME}))"
        rf"(?:{_S}{_NOTE})?(?:{gap_item}){{0,6}}"
        rf"|(?P<ref>{REF_WORDS})(?:{_S}{_NOTE})?(?:{line_gap_item}){{0,6}})"
    )
    candidate = rf"(?:{law}?(?P<run>{RUN})|(?P<mention>{TITLE}))"
    return (
        rf"[{_FIRST_CHARS}](?:(?<=[第《“\"])|(?=[{_REF_SECOND_CHARS}]))"
        rf"(?<=(?=(?P<candidate>{candidate})).)"
    )


# Compiled once per machine (textnorm.kept): compiling it took a tenth of a check's start.
CANDIDATE_RE = kept_pattern(_scan_pattern(title_tails=True, divisions=True))
# The scan reads its groups by number (a name is looked up in a dict at every call).
_CANDIDATE, _TITLE, _QUOTED, _REF, _RUN, _MENTION = (
    CANDIDATE_RE.groupindex[name]
    for name in ("candidate", "title", "quoted", "ref", "run", "mention")
)
# The patterns without title tails or divisions, made when first needed.
_SCANS: dict[tuple[bool, bool], re.Pattern[str]] = {(True, True): CANDIDATE_RE}


def scan_pattern_for(text: str) -> re.Pattern[str]:
    """The pre-scan's pattern for `text`: CANDIDATE_RE, less what cannot match in it."""
    key = (
        "释" in text or "施" in text or "若" in text,
        "编" in text or "章" in text or "节" in text,
    )
    pattern = _SCANS.get(key)
    if pattern is None:
        pattern = _SCANS[key] = kept_pattern(_scan_pattern(*key))
    return pattern


# ---------------------------------------------------------------- looking back from a run
# Looking back is done on the reversed text just before a run, with anchored matches: an
# end-anchored search would retry at every position of the window.
_HTML_REVERSED = r">[^<>\n]{0,30}[a-zA-Z]/?<"
_DIVISION_REVERSED = rf"(?:(?:(?!第)[\u4e00-\u9fff]){{1,12}}{_S})?[编章节]{_S}{_N}{_S}第"
# A name written without 《》 stands on the run's line: these gaps do not cross line breaks.
_SPACING_REVERSED_RE = kept_pattern(rf"(?:[ \t\u3000\xa0*]+|的|中|【|{_HTML_REVERSED}){{0,6}}")
_GAP_REVERSED_RE = kept_pattern(
    rf"(?:[ \t\u3000\xa0*]+|的|中|【|则总|则分|则附|{_HTML_REVERSED}|{_DIVISION_REVERSED}){{0,6}}"
)
_NOTE_REVERSED_RE = kept_pattern(rf"{_S}[）)][^（）()\n]{{1,30}}[（(]")
_NAME_CHARS_REVERSED_RE = kept_pattern(r"[\u4e00-\u9fff（）()·]{1,30}")
_LOOK_BACK = 60
# The characters a gap item or a note ends with (reversed: starts with), but for a division's
# name, which may end with any character and needs one of 编章节 before it.
_GAP_LAST_CHARS = " \t\u3000\xa0*的中【>则）)"
# A name written without 《》 starts after the last verb or particle before it
# (用人单位违反工伤保险条例 → 工伤保险条例).
_LAST_CLAUSE_RE = kept_pattern(
    r"的|是|了|违反|根据|依据|依照|按照|参照|适用|参见|援引|引用|对照|结合|符合|以及|关于"
)
_LAW_SUFFIX_RE = kept_pattern(rf"{LAW_SUFFIX}$")
_LAW_SUFFIX_LAST_CHARS = frozenset(suffix[-1] for suffix in LAW_SUFFIXES)
_LEADING_WORDS_RE = kept_pattern(
    r"^(?:根据|依据|依照|按照|参照|参考|参见|对照|结合|违反|适用|援引|引用|详见|查阅|符合|"
    r"即|如|见|和|及|与|或|并|在|按|依|据|照|我国|现行|相关|有关)+"
)
# Words that may stand right before a bare 第…条 that continues the law cited before it.
_CONTINUATION_WORDS = (
    "根据|依据|依照|按照|参照|参考|参见|对照|结合|违反|适用|援引|引用|详见|查阅|符合|即|如|见|"
    "和|及|与|或|或者|以及|并|且|同时|此外|另外|其中|还有|还|也|又|再|则|在|是|为|对|按|依|据|照|"
    "由|于|属于|构成|包括|及其|等|法律依据|依据是|相关法条|法条"
)
_CONTINUATION_RE = kept_pattern(rf"(?:{_CONTINUATION_WORDS})$")
# A name ending in 本法/该法/本条例 … is a ref word with words before it (依照本法, 享受本条例);
# 合同法 (ending in 同法) is a name.
_REF_WORD_TAIL_RE = kept_pattern(
    r"(?:本|该|此|上述|前述)(?:法|法律|条例|规定|司法解释|解释|办法|细则|决定)$"
)
_GENERIC_NAMES = frozenset(
    {
        *("法", "法律", "法规", "规定", "办法", "条例", "解释", "决定", "细则", "规则"),
        *("标准", "意见", "通知", "相关规定", "有关规定", "司法解释", "上述规定", "以上规定"),
        *("前述规定", "下列规定", "相关法律", "有关法律", "法律法规", "相关法律法规"),
        *("有关法律法规", "国家规定", "具体规定", "明确规定", "法律规定", "上述法律规定"),
        *("该法律", "此法律", "总则", "分则", "附则", "通则", "一般规定", "其他规定", "基本规定"),
        *("特别规定", "附加规定", "补充规定", "实施办法", "实施细则", "暂行规定"),
    }
)
# 《…》 that name documents, not statutes: 《劳动合同》第五条 is a clause of a contract.
_NOT_A_LAW_ENDINGS = (
    *("合同", "协议", "协议书", "合同书", "契约", "章程", "条款", "起诉状", "判决书", "裁定书"),
    *("决定书", "通知书", "说明书", "承诺书", "申请书", "声明", "欠条", "借条", "收据", "须知"),
    *("手册", "公告"),
)
_NAME_WINDOW = 80  # characters looked back for a known name (the longest are ~60)

# ---------------------------------------------------------------- a name set apart from its run
# A comma or colon between a name and its run: 中华人民共和国婚姻法，第二十四条, 教育法：第二十二条.
_APART_MARKS = "，,：:"
# A name right after one of these is one of a list of laws (劳动法、劳动合同法，第…条).
_LIST_JOINERS = ("、", "和", "及", "与", "或", "或者", "以及")
# What may stand before a name alone on its line: a list number, a label (法条：), 根据 …
_LINE_HEAD_RE = kept_pattern(
    r"[ \t\u3000\xa0*#>\-]*"
    r"(?:(?:[0-9]{1,2}|[一二三四五六七八九十]{1,3})[.、．)）]|[（(](?:[0-9]{1,2}|[一二三四五六七八九十]{1,3})[）)])?"
    r"(?:[^：:\n]{0,12}[：:])?[ \t\u3000\xa0*]*(?:根据|依据|依照|按照|参照|参见)?"
    r"(?:[\u4e00-\u9fff、]{2,12}?(?:类中的|[-－—]))?"  # a category: 民法商法类中的…, 社会法-…
)
_CLAUSE_START_RE = kept_pattern(
    rf"(?:{_LAST_CLAUSE_RE.pattern}|在|按|依|据|照|即|如|见|对|为|由|和|及|与|或)$"
)
# Unknown to the lexicon, a name set apart from its run must end like a statute, not in a
# common word (方法, 做法, 违法 …).
_STATUTE_END_RE = kept_pattern(r"(?<![方做说看想手用写算司执违合非立守依犯办])(?:法|法典|条例)$")
_MAX_NAME_LINE = 160  # a label, a category, the longest names (~60) and a note
_ENDS_A_NAME_RE = kept_pattern(r"[\u4e00-\u9fff）)]")
_LINE_TAIL = " \t\u3000\xa0*：:"  # after a name alone on its line: spaces, bold marks, a colon
# The opening 《 cut off with the start of the answer: 医疗器械监督管理条例》（2017年修订）第六条.
_CUT_TITLE_WINDOW = 200  # leading blank lines, 根据 and a name of up to 60 characters
_CUT_TITLE_RE = kept_pattern(
    r"[\s*]*(?:根据|依据|依照|按照|参照)?(?P<name>[^《》“”\n。，,：:；！？]{2,60})》"
)


class Candidate(NamedTuple):
    """A span of the answer for the grammar (`chain`) or a lone title (`mention`); a tuple,
    as it is built for every match of the scan (three times cheaper than a dataclass)."""

    kind: str  # "chain" or "mention"
    start: int
    end: int
    name: str | None = None  # the law as written, for a mention
    name_end: int | None = None  # end of a name written without 《》 (the chain starts at it)
    law_kind: str | None = None  # title, quoted, ref_word, name, or None (a bare run)
    run_start: int = 0  # where a chain's run of references starts (its law part before it)


def is_law_like(name: str) -> bool:
    """A written name that may be a statute (not a contract or other document)."""
    return bool(name) and not name.endswith(_NOT_A_LAW_ENDINGS)


# is_law_like of a whole 《title》's name, tested on the title (no slice; no ending holds 《).
_NOT_A_LAW_TITLE_ENDINGS = tuple(f"{ending}》" for ending in _NOT_A_LAW_ENDINGS)
_new_tuple = tuple.__new__  # a Candidate without its Python-level __new__


def _name_ends(text: str, end: int) -> tuple[int, ...]:
    """Where a name before the run at `end` may end: before spacing (的, spaces, a note)
    only, before a whole gap (also 总则, 第二章 …), and before a part of a code named
    after it (民法典合同编, 民法典-婚姻家庭编: every length is tried, shortest first)."""
    if end == 0:
        return (0, 0)
    window_start = end - _LOOK_BACK if end > _LOOK_BACK else 0
    if (
        text[end - 1] not in _GAP_LAST_CHARS
        and text.find("编", window_start, end) < 0
        and text.find("章", window_start, end) < 0
        and text.find("节", window_start, end) < 0
    ):
        return (end, end)  # no gap, note or part of a code can end here: no window to cut
    return _name_ends_in_window(text, end, window_start)


def _name_ends_in_window(text: str, end: int, window_start: int) -> tuple[int, ...]:
    """_name_ends by cutting and matching the window before `end` (the reference its
    shortcut must agree with, tests/extractor/test_name_ends.py)."""
    window = text[window_start:end][::-1]
    ends = []
    for gap in (_SPACING_REVERSED_RE, _GAP_REVERSED_RE):
        position = gap.match(window).end()  # type: ignore[union-attr]  # matches ""
        note = _NOTE_REVERSED_RE.match(window, position)
        if note:
            position = gap.match(window, note.end()).end()  # type: ignore[union-attr]
        ends.append(end - position)
    full = ends[1]
    if full > 2 and text[full - 1] == "编":
        for length in range(2, 7):
            part_start = full - 1 - length
            if part_start > 0:
                ends.append(part_start - (text[part_start - 1] in "-－—"))
    return tuple(ends)


def _plausible_name(text: str, end: int) -> int | None:
    """Start of a law name written without 《》 that ends at `end`, by its shape alone."""
    if not end or text[end - 1] not in _LAW_SUFFIX_LAST_CHARS:
        return None  # the name would end at `end` and does not end like a law: no window cut
    match = _NAME_CHARS_REVERSED_RE.match(text[end - 30 if end > 30 else 0 : end][::-1])
    if not match:
        return None
    name = _LAST_CLAUSE_RE.split(match.group(0)[::-1])[-1]
    lead = _LEADING_WORDS_RE.match(name)
    if lead and len(name) - lead.end() >= 2:
        name = name[lead.end() :]
    if (
        len(name) < 2
        or name in _GENERIC_NAMES
        or not _LAW_SUFFIX_RE.search(name)
        or _REF_WORD_TAIL_RE.search(name)
    ):
        return None
    return end - len(name)


def bare_name(
    text: str,
    ends: tuple[int, ...],
    lexicon: Lexicon | None,
    may_start: Callable[[int], bool] | None = None,
) -> tuple[int, int] | None:
    """(start, end) of a law name written without 《》 that ends at one of `ends` (and starts
    where `may_start` allows, if given).

    民法总则第一条 has its name right before the run, 社会保险法第二章第十五条 before a gap;
    the lexicon is asked first, then the name's shape.
    """
    if lexicon is not None:
        last_chars = lexicon.last_chars  # no key ends otherwise: no window to cut
        for name_end in ends:
            if name_end == 0 or text[name_end - 1] not in last_chars:
                continue
            window_start = name_end - _NAME_WINDOW if name_end > _NAME_WINDOW else 0
            length = lexicon.longest_suffix(text[window_start:name_end])
            if length and (may_start is None or may_start(name_end - length)):
                return name_end - length, name_end
    for name_end in ends:
        name_start = _plausible_name(text, name_end)
        if name_start is not None and (may_start is None or may_start(name_start)):
            return name_start, name_end
    return None


def continues(text: str, end: int) -> bool:
    """Whether a bare run starting at `end` may continue the law cited before it.

    It may after punctuation, a line break or the start of the answer, or after a word such
    as 根据/和/同时; not after a noun (合同第五条 is a clause of a contract).
    """
    end = _back_over_spaces(text, end)
    if end == 0:
        return True
    previous = text[end - 1]
    if not ("\u4e00" <= previous <= "\u9fff"):
        return True
    return bool(_CONTINUATION_RE.search(text[max(0, end - 6) : end]))


def _back_over_spaces(text: str, position: int) -> int:
    """The position before the spaces that end text[:position]."""
    while position > 0 and text[position - 1] in " \t\u3000\xa0":
        position -= 1
    return position


class ApartName(NamedTuple):
    """A law name set apart from its run by a comma, a colon or a line break."""

    start: int
    end: int
    statute: bool  # taken as the run's law; else the run is no citation (a list, a rule …)


def _names_a_statute(text: str, start: int, end: int, lexicon: Lexicon | None) -> bool:
    """Whether a name set apart from its run is taken as its law: one the lexicon knows, one
    written with 中华人民共和国, or one ending like a statute (…法, …条例; invented laws keep their
    names). 考勤规定，第三条 (a company's rule) and 具体方法：第一条 are not."""
    written = strip_category(text[start:end])
    if written.startswith(PRC_PREFIX) or _STATUTE_END_RE.search(written):
        return True
    return lexicon is not None and lexicon.resolve(written) is not None


def _starts_clause(text: str, start: int) -> bool:
    """Whether a name may start here: after punctuation or a verb or particle (违反了…, 根据…),
    not inside a longer word (职业病保险法 does not name 保险法)."""
    if start == 0 or not ("\u4e00" <= text[start - 1] <= "\u9fff"):
        return True
    return bool(_CLAUSE_START_RE.search(text[max(0, start - 2) : start]))


def _in_a_list(text: str, name_start: int, lexicon: Lexicon | None) -> bool:
    """Whether the name starting here follows another in a list (劳动法、劳动合同法; 《劳动法》，
    劳动合同法): the run after the list belongs to none of them that we could tell."""
    before = _back_over_spaces(text, name_start)
    if text.endswith(_LIST_JOINERS, max(0, before - 2), before):
        return True
    if before == 0 or text[before - 1] not in "，,":
        return False
    comma = before - 1
    title_end = _back_over_spaces(text, comma)
    closed = title_end > 0 and text[title_end - 1] == "》"
    return closed or bare_name(text, (comma,), lexicon) is not None


def _name_before_mark(text: str, start: int, lexicon: Lexicon | None) -> ApartName | None:
    """A name before a comma or colon right before the run at `start` (婚姻法，第二十四条)."""
    mark = _back_over_spaces(text, start) - 1
    if mark < 1 or text[mark] not in _APART_MARKS:
        return None
    name = bare_name(text, _name_ends(text, mark), lexicon, lambda at: _starts_clause(text, at))
    if name is None:
        return None
    listed = _in_a_list(text, name[0], lexicon)
    return ApartName(*name, not listed and _names_a_statute(text, *name, lexicon))


def _name_line(
    text: str, line_start: int, line_end: int, lexicon: Lexicon | None
) -> ApartName | None:
    """The name that fills the line text[line_start:line_end], after a list number, a label
    (法条：) or 根据 …, before a note or a colon: 2. 中华人民共和国劳动合同法（2012年修正）："""
    end = line_end
    while end > line_start and text[end - 1] in _LINE_TAIL:
        end -= 1
    if end - line_start > _MAX_NAME_LINE or not _ENDS_A_NAME_RE.match(text, end - 1, end):
        return None  # most lines: a sentence, a recited article (…劳动关系。)
    name = bare_name(
        text,
        _name_ends(text, end),
        lexicon,
        lambda at: at >= line_start and _LINE_HEAD_RE.fullmatch(text, line_start, at) is not None,
    )
    return None if name is None else ApartName(*name, _names_a_statute(text, *name, lexicon))


def _previous_line(text: str, position: int) -> tuple[int, int] | None:
    """(start, end) of the last non-blank line ending before `position` (a line start)."""
    end = position
    while end > 0 and text[end - 1] in " \t\u3000\xa0\r\n":
        end -= 1
    if end == 0:
        return None
    return text.rfind("\n", 0, end) + 1, end


def _name_on_line_before(text: str, start: int, lexicon: Lexicon | None) -> ApartName | None:
    """A name alone on its line, the run at `start` opening a later line
    (中华人民共和国劳动合同法⏎第六条); not the last of a list of names one per line."""
    line_start = start
    while line_start > 0 and text[line_start - 1] in " \t\u3000\xa0*#【":
        line_start -= 1
    if line_start == 0 or text[line_start - 1] != "\n":
        return None
    line = _previous_line(text, line_start)
    name = None if line is None else _name_line(text, *line, lexicon)
    if name is None or line is None:
        return None
    before = _previous_line(text, line[0])
    if before is not None and _name_line(text, *before, lexicon) is not None:
        return name._replace(statute=False)  # the last of a list of names
    return name


def name_apart(text: str, start: int, lexicon: Lexicon | None) -> ApartName | None:
    """A law name set apart from the run at `start`: by a comma or colon
    (中华人民共和国婚姻法，第二十四条) or alone on the line before (…劳动合同法⏎第六条)."""
    return _name_before_mark(text, start, lexicon) or _name_on_line_before(text, start, lexicon)


def cut_title(text: str) -> tuple[int, int] | None:
    """(start, end) of a title whose 《 was cut off with the start of the answer
    (医疗器械监督管理条例》…), the closing mark included; None if the answer opens otherwise."""
    close = text.find("》", 0, _CUT_TITLE_WINDOW)
    # The name runs from the answer's start (after spacing and 根据 …) to the first 》 and
    # holds no 《: an answer with a 《 before its first 》 (nearly every one) has no cut title.
    if close < 0 or text.find("《", 0, close) >= 0:
        return None
    match = _CUT_TITLE_RE.match(text)
    if match is None or not is_law_like(match.group("name")):
        return None
    return match.start("name"), match.end()


def find_candidates(text: str, lexicon: Lexicon | None = None) -> list[Candidate]:
    """All candidate spans of `text`, in order, not overlapping."""
    found: list[Candidate] = []
    last_end = 0
    cut = cut_title(text)
    search = scan_pattern_for(text).search
    # Every candidate holds a 第 (its run's) or a 《 (a title's) at or after its start, so none
    # starts after the last of them: the scan stops there instead of testing each character
    # of the text after the last candidate (45% of the flzx answers' characters).
    last = max(text.rfind("第"), text.rfind("《"))
    position = 0
    while position <= last and (match := search(text, position)) is not None:
        start, end = match.span(_CANDIDATE)
        position = end
        mention, title, quoted, ref = match.group(_MENTION, _TITLE, _QUOTED, _REF)
        if mention is not None:
            found.append(
                _new_tuple(Candidate, ("mention", start, end, mention[1:-1], None, None, 0))
            )
            last_end = end
            continue
        name_end = None
        law_kind: str | None = None
        if title is not None:
            if title.endswith(_NOT_A_LAW_TITLE_ENDINGS):  # not is_law_like(title[1:-1])
                last_end = end
                continue
            law_kind = "title"
        elif quoted is not None:
            law_kind = "quoted"
        elif ref is not None:
            law_kind = "ref_word"
            # 合同法 ends with 同法, 基本法 with 本法: a longer name wins over the ref word.
            name = bare_name(text, (match.end(_REF),), lexicon)
            if name is not None and last_end <= name[0] < start:
                start, name_end = name
                law_kind = "name"
        else:
            ends = _name_ends(text, start)
            name = bare_name(text, ends, lexicon)
            apart = name_apart(text, start, lexicon) if name is None else None
            if cut is not None and cut[1] in ends and last_end <= cut[0]:
                start, law_kind = cut[0], "title"
                cut = None
            elif name is not None and name[0] >= last_end:
                start, name_end = name
                law_kind = "name"
            elif apart is not None and apart.start >= last_end:
                if not apart.statute:  # 考勤规定，第三条; 劳动法、劳动合同法，第三十一条
                    last_end = end
                    continue
                start, name_end = apart.start, apart.end
                law_kind = "name"
            elif not continues(text, start):
                last_end = end
                continue
        found.append(
            _new_tuple(
                Candidate, ("chain", start, end, None, name_end, law_kind, match.start(_RUN))
            )
        )
        last_end = end
    if cut is not None and (not found or found[0].start >= cut[1]):
        found.insert(0, Candidate("mention", cut[0], cut[1], text[cut[0] : cut[1] - 1]))
    return found
