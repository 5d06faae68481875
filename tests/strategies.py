"""Shared Hypothesis strategies."""

from __future__ import annotations

from datetime import date

from hypothesis import strategies as st

from extractor.models import Citation, Quote, Span
from textnorm import int_to_cn

article_numbers = st.integers(min_value=1, max_value=9999)

chat_messages = st.lists(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["system", "user", "assistant"]), "content": st.text(max_size=200)}
    ),
    min_size=1,
    max_size=4,
)
"""Chat-completions message lists as {role, content} dicts, with any Unicode content."""


# Personal data, written as people write it (audit masking). The check digits are computed here,
# apart from audit.masking, so the tests do not grade the code with its own answers.

_PROVINCE_RANGES = (range(11, 16), range(21, 24), range(31, 38), range(41, 47), range(50, 55))
PROVINCE_CODES = tuple(
    str(code) for codes in (*_PROVINCE_RANGES, range(61, 66), (71, 81, 82)) for code in codes
)
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def digit_strings(length: int) -> st.SearchStrategy[str]:
    """Strings of exactly length ASCII digits."""
    return st.text("0123456789", min_size=length, max_size=length)


def resident_id_check_char(first_17: str) -> str:
    """ISO 7064 MOD 11-2 check character of a 身份证号 (GB 11643)."""
    total = sum(int(digit) * weight for digit, weight in zip(first_17, _ID_WEIGHTS, strict=True))
    return "10X98765432"[total % 11]


def luhn_check_digit(payload: str) -> str:
    """The digit that makes payload + digit pass the Luhn check."""
    total = 0
    for position, char in enumerate(reversed(payload)):
        value = int(char) * (2 if position % 2 == 0 else 1)
        total += value - 9 if value > 9 else value
    return str(-total % 10)


@st.composite
def resident_id_bodies(draw: st.DrawFn) -> str:
    """The first 17 characters of a 身份证号: province, region, birth date 1900-2099, sequence."""
    birth = draw(st.dates(min_value=date(1900, 1, 1), max_value=date(2099, 12, 31)))
    province = draw(st.sampled_from(PROVINCE_CODES))
    return f"{province}{draw(digit_strings(4))}{birth:%Y%m%d}{draw(digit_strings(3))}"


@st.composite
def resident_ids(draw: st.DrawFn) -> str:
    """Valid 18-character 身份证号 (X sometimes written x), plain or grouped 6-8-4."""
    body = draw(resident_id_bodies())
    check = resident_id_check_char(body)
    number = body + (check.lower() if check == "X" and draw(st.booleans()) else check)
    separator = draw(st.sampled_from(["", "", " ", "-"]))
    return separator.join((number[:6], number[6:14], number[14:]))


@st.composite
def resident_ids_with_wrong_check(draw: st.DrawFn) -> str:
    """18-character 身份证号 whose check character is wrong."""
    body = draw(resident_id_bodies())
    right = resident_id_check_char(body)
    return body + draw(st.sampled_from([c for c in "0123456789X" if c != right]))


@st.composite
def old_resident_ids(draw: st.DrawFn) -> str:
    """15-digit 身份证号 of the pre-1999 form: province, region, YYMMDD (1900s), sequence."""
    birth = draw(st.dates(min_value=date(1900, 1, 1), max_value=date(1999, 12, 31)))
    province = draw(st.sampled_from(PROVINCE_CODES))
    return f"{province}{draw(digit_strings(4))}{birth:%y%m%d}{draw(digit_strings(3))}"


# Card prefixes that are no province code, so no card below can also read as a 身份证号.
_CARD_PREFIXES = ("40", "47", "48", "49", "55", "56", "57", "58", "60")


@st.composite
def bank_card_digits(draw: st.DrawFn) -> str:
    """13-19 digit card numbers with a valid Luhn check digit."""
    length = draw(st.integers(min_value=13, max_value=19))
    prefix = draw(st.sampled_from(_CARD_PREFIXES))
    payload = prefix + draw(digit_strings(length - 1 - len(prefix)))
    return payload + luhn_check_digit(payload)


@st.composite
def bank_card_numbers(draw: st.DrawFn) -> str:
    """Luhn-valid card numbers as written: plain, or 4-4-4-4(-3) with spaces or hyphens."""
    digits = draw(bank_card_digits())
    separator = draw(st.sampled_from(["", " ", "-"]))
    if not separator or len(digits) not in (16, 19):
        return digits
    return separator.join(digits[i : i + 4] for i in range(0, len(digits), 4))


@st.composite
def non_luhn_card_digits(draw: st.DrawFn) -> str:
    """13-19 digit numbers that fail the Luhn check (and start 40: no 身份证号, no phone)."""
    length = draw(st.integers(min_value=13, max_value=19))
    payload = "40" + draw(digit_strings(length - 3))
    right = luhn_check_digit(payload)
    return payload + draw(st.sampled_from([d for d in "0123456789" if d != right]))


@st.composite
def mobile_numbers(draw: st.DrawFn) -> str:
    """Chinese mobile numbers 1[3-9]x…, plain or 3-4-4 spaced/hyphenated, with or without +86."""
    digits = "1" + draw(st.sampled_from("3456789")) + draw(digit_strings(9))
    separator = draw(st.sampled_from(["", " ", "-"]))
    number = separator.join((digits[:3], digits[3:7], digits[7:]))
    prefix = draw(st.sampled_from(["", "", "+86", "+86 ", "+86-", "0086", "86", "86-", "(+86)"]))
    return prefix + number


@st.composite
def landline_numbers(draw: st.DrawFn) -> str:
    """Landlines with area code: 010-62345678, (021)62345678, 0755 8600123, 075586001234."""
    three_digit = ["010"] + [f"02{d}" for d in range(10)]
    area = draw(st.sampled_from(three_digit) | st.from_regex(r"\A0[3-9][0-9]{2}\Z"))
    local_length = 8 if len(area) == 3 else draw(st.sampled_from([7, 8]))
    local = draw(st.sampled_from("23456789")) + draw(digit_strings(local_length - 1))
    style = draw(st.sampled_from(["{a}-{l}", "({a}){l}", "({a}) {l}", "{a} {l}", "{a}{l}"]))
    return style.format(a=area, l=local)


emails = st.builds(
    "{}@{}.{}".format,
    st.from_regex(r"\A[a-z0-9]([a-z0-9._+-]{0,20}[a-z0-9])?\Z"),
    st.lists(st.from_regex(r"\A[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?\Z"), min_size=1, max_size=3).map(
        ".".join
    ),
    st.from_regex(r"\A[a-z]{2,6}\Z"),
)
"""E-mail addresses: local@label(.label)*.tld, ASCII."""

chinese_text = st.text(
    alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF).filter(
        lambda char: char not in "元万亿"
    )
    | st.sampled_from("，。：；、！？“”（）"),
    max_size=30,
)
"""Chinese prose around personal data (CJK and CJK punctuation; no amount unit 元/万/亿)."""

chinese_words = st.text(
    alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF).filter(
        lambda char: char not in "元万亿"
    ),
    min_size=1,
    max_size=10,
)
"""At least one CJK character: what keeps two numbers apart in running text."""


# Statute data (legaldb).

article_texts = st.lists(
    st.text(
        alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x4FFF), min_size=5, max_size=60
    ),
    min_size=1,
    max_size=20,
    unique=True,
)
"""Distinct CJK texts for the articles of one version."""


def law_name_spellings(name: str) -> st.SearchStrategy[str]:
    """Ways people write a law name: 《》 marks, spaces, ideographic spaces, the PRC prefix or not."""
    bare = name.removeprefix("中华人民共和国")
    cores = st.sampled_from([name, bare] if bare != name else [name])

    def dress(core: str, marks: bool, space: str, position: int) -> str:
        position = position % (len(core) + 1)
        spaced = core[:position] + space + core[position:]
        return f"《{spaced}》" if marks else spaced

    return st.builds(
        dress,
        cores,
        st.booleans(),
        st.sampled_from(["", " ", "\u3000", "\u200b"]),
        st.integers(0, 40),
    )


# Numbers in statute text (verifier.numbers).


@st.composite
def written_amounts(draw: st.DrawFn) -> tuple[int, str]:
    """(value, numeral) of a yuan amount: Chinese, Arabic, 1,000 grouping, N万 or N亿."""
    value = draw(st.integers(min_value=0, max_value=10**12))
    forms = [int_to_cn(value), str(value), f"{value:,}"]
    if value and value % 10_000 == 0:
        forms.append(f"{value // 10_000}万")  # 390625万: Arabic before 万 may exceed 万
        if value < 100_000_000:
            forms.append(f"{int_to_cn(value // 10_000)}万")  # Chinese: 亿 takes over
    if value and value % 100_000_000 == 0:
        forms += [f"{value // 100_000_000}亿", f"{int_to_cn(value // 100_000_000)}亿"]
    return value, draw(st.sampled_from(forms))


_STATUTE_CLAUSES = (
    "处{a}元以上{b}元以下的罚款",
    "应当向劳动者每月支付{m}倍的工资",
    "应当自收到申请之日起{d}日内作出决定",
    "已满{age}周岁的人犯罪，应当负刑事责任",
    "诉讼时效期间为{y}年",
    "试用期不得超过{mo}个月",
    "经代表{p}分之{q}以上表决权的股东通过",
    "由{n}人以上组成",
)


@st.composite
def statute_texts_with_numbers(draw: st.DrawFn) -> str:
    """Article-like texts made of statute clauses with random numbers, joined by 。 or ；."""

    def numeral(low: int, high: int) -> str:
        value = draw(st.integers(min_value=low, max_value=high))
        return draw(st.sampled_from([int_to_cn(value), str(value)]))

    clauses = draw(st.lists(st.sampled_from(_STATUTE_CLAUSES), min_size=1, max_size=6))
    filled = [
        clause.format(
            a=numeral(1, 10**6),
            b=numeral(1, 10**8),
            m=numeral(1, 10),
            d=numeral(1, 90),
            age=numeral(8, 18),
            y=numeral(1, 20),
            mo=numeral(1, 12),
            p=numeral(2, 10),
            q=numeral(1, 9),
            n=numeral(2, 50),
        )
        for clause in clauses
    ]
    return "".join(c + draw(st.sampled_from(["。", "；"])) for c in filled)


chinese_sentences = st.lists(
    st.builds(
        "{}，{}。".format,
        st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=2, max_size=20),
        st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=2, max_size=20),
    ),
    min_size=1,
    max_size=8,
)
"""Article-like texts as lists of CJK sentences, each with a comma and a full stop."""


# Corpus files (legaldb.corpus).

_CORPUS_TEXT_CHARS = "的了和人民法院公司股东合同当事人应当可以不得依照规定处罚款项目权利义务"


@st.composite
def article_structures(draw: st.DrawFn) -> list[tuple[int, str | None, tuple[int, ...]]]:
    """Consecutive articles as (number, 之N suffix or None, 项 count of each 款): what a corpus
    file encodes; numbers start anywhere (民法典's 编 files start mid-code)."""
    number = draw(st.integers(min_value=1, max_value=1500))
    articles: list[tuple[int, str | None, tuple[int, ...]]] = []
    for _ in range(draw(st.integers(min_value=1, max_value=8))):
        items = tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=4)))
        articles.append((number, None, items))
        for rank in range(1, draw(st.integers(0, 2)) + 1):
            suffix = "之" + "一二三四五六七八九"[rank - 1]
            articles.append((number, suffix, tuple(draw(st.lists(st.integers(0, 3), min_size=1)))))
        number += 1
    return articles


corpus_phrases = st.text(alphabet=_CORPUS_TEXT_CHARS, min_size=1, max_size=30).map(
    lambda text: text + "。"
)
"""A sentence of statute-like CJK text that starts no article, item or heading."""


# The gate's decision (gate.decide).

GATE_CITATION_KINDS = (
    "verified",
    "article_not_found",
    "law_not_found_covered",
    "law_not_found_partial",
    "repealed",
    "not_yet_effective",
    "quote_mismatch",
    "number_conflict",
)

gate_citation_specs = st.lists(
    st.tuples(st.sampled_from(GATE_CITATION_KINDS), st.integers(min_value=1, max_value=12)),
    max_size=14,
)
"""Citations of an answer as (kind, article number) pairs; the gate tests build the verdicts."""


# Statute citations as answers write them (extractor).

CITATION_ALPHABET = '第一二三四五六七八九十百千零两0123456789０１２条款项章节编之、，和及至到-（）()《》〈〉“”"本该同法律规定条例的中 \n。：劳动合同民典刑'
"""Characters citations are made of, to stress the pre-scan and the grammar together."""

citation_like_text = st.text(alphabet=CITATION_ALPHABET, max_size=80)
"""Short texts dense in 第/条/《》/本法 …: near-citations and broken ones."""

_PLAIN_CHARS = "用人单位劳动者应当按照约定支付工资报酬经济补偿期间情形社会保险登记机关申请办理手续"
plain_chinese = st.text(alphabet=_PLAIN_CHARS + "，。；！？ \n", max_size=40)
"""Chinese prose that holds no citation (no 第, numerals, titles or law names)."""


@st.composite
def rendered_citations(draw: st.DrawFn, names: tuple[str, ...]) -> tuple[str, dict[str, object]]:
    """One citation written out (law from `names`, article 1..1260 Chinese or Arabic, optional
    之N/款/项) and the fields extraction must give back."""
    name = draw(st.sampled_from(names))
    written = draw(st.sampled_from([name, name.removeprefix("中华人民共和国")]))
    article = draw(st.integers(min_value=1, max_value=1260))
    suffix = draw(st.sampled_from([None, "之一", "之二"]))
    paragraph = draw(st.one_of(st.none(), st.integers(min_value=1, max_value=9)))
    item = draw(st.one_of(st.none(), st.integers(min_value=1, max_value=12)))
    arabic = draw(st.booleans())
    number = str(article) if arabic else int_to_cn(article)
    text = f"第{number}条{suffix or ''}"
    if paragraph is not None:
        text += f"第{paragraph if arabic else int_to_cn(paragraph)}款"
    if item is not None:
        item_number = int_to_cn(item)
        text += draw(st.sampled_from([f"第{item_number}项", f"第（{item_number}）项"]))
    titled = draw(st.booleans())
    surface = (f"《{written}》" if titled else written) + text
    fields = {
        "law": name,
        "article": article,
        "article_suffix": suffix,
        "paragraph": paragraph,
        "item": item,
        "surface": surface,
    }
    return surface, fields


@st.composite
def set_apart_citations(draw: st.DrawFn, names: tuple[str, ...]) -> tuple[str, str, int]:
    """A name set apart from its article as real answers write it: by a comma or colon
    (婚姻法，第二十四条), or alone on its line, maybe after a label or list number
    (法条：劳动合同法⏎第六条); returns the text, the name and the article."""
    name = draw(st.sampled_from(names))
    written = draw(st.sampled_from([name, name.removeprefix("中华人民共和国")]))
    article = draw(st.integers(min_value=1, max_value=1260))
    number = str(article) if draw(st.booleans()) else int_to_cn(article)
    head = draw(st.sampled_from(["", "法条：", "1. ", "法律依据：", "根据"]))
    between = draw(st.sampled_from(["，", "：", " ，", "\n", "\n\n", "：\n", "\n  "]))
    if "\n" in between:
        head = draw(st.sampled_from(["", "法条：", "1. ", "（二）", "**", "法律依据："]))
    return f"{head}{written}{between}第{number}条", name, article


# API keys (web).

api_key_like_texts = st.one_of(
    st.text(max_size=80),
    st.builds(
        "{}_{}_{}".format,
        st.sampled_from(["lgk", "LGK", "lg", ""]),
        st.text(alphabet="0123456789abcdefABCDEF_", max_size=14),
        st.text(max_size=50),
    ),
)
"""Texts shaped like API keys (lgk_<id>_<secret>) and arbitrary text."""


# --- The model judge (gate.judge): first-token logprobs with the options A/B/C among them ---

JUDGE_OPTION_VARIANTS = ("A", " A", "a", "B", " B", "b\n", "C", " C", "c")
JUDGE_OTHER_TOKENS = ("D", "The", "答", "\n", " ", "AB", "是")

judge_top_logprobs = st.dictionaries(
    st.sampled_from(JUDGE_OPTION_VARIANTS),
    st.floats(min_value=-30.0, max_value=0.0, allow_nan=False),
    min_size=1,
    max_size=len(JUDGE_OPTION_VARIANTS),
).flatmap(
    lambda options: st.dictionaries(
        st.sampled_from(JUDGE_OTHER_TOKENS),
        st.floats(min_value=-30.0, max_value=0.0, allow_nan=False),
        max_size=3,
    ).map(lambda others: {**others, **options})
)
"""A first token's top logprobs (token → logprob): some variants of A/B/C and other tokens."""


# Answers a client might send to POST /check and /gate (reliability).

hostile_answers = st.one_of(
    st.text(min_size=1, max_size=300),
    st.lists(
        st.one_of(citation_like_text, plain_chinese, st.text(max_size=20)), min_size=1, max_size=8
    ).map("".join).filter(bool),
    st.tuples(st.sampled_from(["《中华人民共和国民法典》", "《劳动合同法》", "本法", "《"]),
              citation_like_text).map("".join),
)  # fmt: skip
"""Any text (controls, surrogates left out by JSON), citation-dense runs and half-citations."""


# --- The JSON writers' values: every str and int json may meet (citations field by field) ---

json_texts = st.text(max_size=12)
json_maybe_texts = st.none() | json_texts
json_counts = st.integers(min_value=-(10**20), max_value=10**20)
json_spans = st.builds(Span, json_texts, json_counts, json_counts)
json_citations = st.builds(
    Citation,
    surface=json_texts,
    start=json_counts,
    end=json_counts,
    law_as_written=json_maybe_texts,
    law=json_maybe_texts,
    implicit=st.booleans(),
    article=json_counts,
    article_suffix=json_maybe_texts,
    paragraph=st.none() | json_counts,
    item=st.none() | json_counts,
    range=st.booleans(),
    version_hint=json_maybe_texts,
    quote=st.none() | st.builds(Quote, json_texts, json_counts, json_counts),
    claim=st.none() | json_spans,
)
"""Citations with any values their JSON may hold (extract's and check's line writers)."""
