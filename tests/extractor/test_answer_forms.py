"""Forms from real LawBench answers, table-driven: a category written before the name, a name
set apart from its article (a comma, a colon, its own line), ASCII quotes as title marks, a
title cut off with the start of the answer; and the texts where none of these may glue an
article to a law."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from extractor import Lexicon, extract
from tests.extractor.conftest import ALIASES, LAW_NAMES
from tests.strategies import plain_chinese, set_apart_citations

LDHT = "中华人民共和国劳动合同法"
LDF = "中华人民共和国劳动法"
MFD = "中华人民共和国民法典"
SB = "中华人民共和国社会保险法"
HYF = "中华人民共和国婚姻法"
YLQX = "医疗器械监督管理条例"
BXF = "中华人民共和国保险法"
GRDZ = "中华人民共和国个人独资企业法"
CJR = "中华人民共和国残疾人保障法"
GSF = "中华人民共和国公司法"
LNR = "中华人民共和国老年人权益保障法"
JTCX = "道路交通安全违法行为处理程序规定"

# Real names the forms below cite, next to the shared test lexicon's.
MORE_NAMES = (GRDZ, CJR, LNR, JTCX, YLQX, BXF)

# (surface, law_as_written, law, article, implicit)
Row = tuple[str, str | None, str | None, int, bool]


LEXICON = Lexicon.from_mapping({**{name: name for name in (*LAW_NAMES, *MORE_NAMES)}, **ALIASES})
PLAIN_NAMES = tuple(name for name in (*LAW_NAMES, *MORE_NAMES) if "《" not in name)


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return LEXICON


CATEGORY_FORMS: list[tuple[str, str, list[Row]]] = [
    (
        "zhong-de-bare",
        "民法商法类中的个人独资企业法第三条",
        [("个人独资企业法第三条", "个人独资企业法", GRDZ, 3, False)],
    ),
    (
        "zhong-de-in-title",
        "《社会法类中的残疾人保障法》第二条",
        [("《社会法类中的残疾人保障法》第二条", "社会法类中的残疾人保障法", CJR, 2, False)],
    ),
    (
        "ministry-zhong-de-de",
        "公安部类中的道路交通安全违法行为处理程序规定的第四十二条",
        [(f"{JTCX}的第四十二条", JTCX, JTCX, 42, False)],
    ),
    (
        "dash-bare",
        "民法商法-公司法第十六条",
        [("公司法第十六条", "公司法", GSF, 16, False)],
    ),
    (
        "lei-in-title",
        "《民法商法类公司法》第十六条",
        [("《民法商法类公司法》第十六条", "民法商法类公司法", GSF, 16, False)],
    ),
    (
        "dash-title-mentioned-then-continued",
        "根据《社会法-老年人权益保障法》，家庭成员应当关心老年人。具体法条如下：\n第十三条 老年人养老以居家为基础",
        [("第十三条", None, LNR, 13, True)],
    ),
]


def rows(text: str, lexicon: Lexicon | None) -> list[Row]:
    return [
        (c.surface, c.law_as_written, c.law, c.article, c.implicit) for c in extract(text, lexicon)
    ]


@pytest.mark.parametrize(
    ("text", "expected"), [f[1:] for f in CATEGORY_FORMS], ids=[f[0] for f in CATEGORY_FORMS]
)
def test_category_prefix(text: str, expected: list[Row], lexicon: Lexicon) -> None:
    """The category before a name is dropped before lookup: the law is the real one."""
    assert rows(text, lexicon) == expected


WITHOUT_LEXICON = [
    ("zhong-de-title", "《民法商法类中的公司法》第十六条", "公司法"),
    ("lei-bare", "社会法类残疾人保障法第二条", "残疾人保障法"),
    ("dash-title", "《社会法-劳动法》第三十六条", "劳动法"),
]


@pytest.mark.parametrize(
    ("text", "law"), [w[1:] for w in WITHOUT_LEXICON], ids=[w[0] for w in WITHOUT_LEXICON]
)
def test_category_prefix_without_lexicon(text: str, law: str) -> None:
    """Without a lexicon the category is dropped all the same."""
    (citation,) = extract(text)
    assert citation.law == law


APART_FORMS: list[tuple[str, str, list[Row]]] = [
    (
        "name-on-its-own-line",
        f"{LDHT}\n第六条 用人单位自用工之日起即与劳动者建立劳动关系。\n第七条 用人单位应当建立职工名册",
        [(f"{LDHT}\n第六条", LDHT, LDHT, 6, False), ("第七条", None, LDHT, 7, True)],
    ),
    (
        "label-then-name-line-blank-line",
        "法条：劳动合同法\n\n第十条 建立劳动关系，应当订立书面劳动合同。",
        [("劳动合同法\n\n第十条", "劳动合同法", LDHT, 10, False)],
    ),
    (
        "numbered-name-line-note-colon",
        "1. 中华人民共和国公司法（2018年修正）：\n第十六条 公司向其他企业投资",
        [(f"{GSF}（2018年修正）：\n第十六条", GSF, GSF, 16, False)],
    ),
    (
        "category-name-line",
        "民法商法类中的个人独资企业法\n第三条 个人独资企业以其主要办事机构所在地为住所。",
        [("个人独资企业法\n第三条", "个人独资企业法", GRDZ, 3, False)],
    ),
    (
        "comma",
        f"{HYF}，第二十四条规定：夫妻有相互继承遗产的权利。",
        [(f"{HYF}，第二十四条", HYF, HYF, 24, False)],
    ),
    (
        "comma-after-a-verb",
        "小张违反了劳动合同法，第三十九条规定的情形",
        [("劳动合同法，第三十九条", "劳动合同法", LDHT, 39, False)],
    ),
    (
        "comma-in-brackets",
        "(中华人民共和国民法典，第三百六十条)",
        [(f"{MFD}，第三百六十条", MFD, MFD, 360, False)],
    ),
    (
        "colon",
        "法条:\n1. 社会保险法：第三十条：下列医疗费用不纳入基金支付范围",
        [("社会保险法：第三十条", "社会保险法", SB, 30, False)],
    ),
    (
        "invented-name-set-apart",
        "1. 职业健康法：第二十二条：用人单位应当为员工提供必要的职业健康保障。",
        [("职业健康法：第二十二条", "职业健康法", "职业健康法", 22, False)],
    ),
    (
        "invented-prc-name-comma",
        "法律依据：中华人民共和国医疗器械规定，第三十一条。",
        [
            (
                "中华人民共和国医疗器械规定，第三十一条",
                "中华人民共和国医疗器械规定",
                "中华人民共和国医疗器械规定",
                31,
                False,
            )
        ],
    ),
    (
        "name-inside-a-longer-name",
        "3. 职业病保险法：第二十五条：用人单位应当为员工缴纳保险。",
        [("职业病保险法：第二十五条", "职业病保险法", "职业病保险法", 25, False)],
    ),
    (
        "ascii-quotes",
        '根据"中华人民共和国公司法"第一百四十七条的规定',
        [('"中华人民共和国公司法"第一百四十七条', GSF, GSF, 147, False)],
    ),
    (
        "ascii-quotes-short-name",
        '"劳动法"第三十六条规定',
        [('"劳动法"第三十六条', "劳动法", LDF, 36, False)],
    ),
    (
        "cut-title",
        f"{YLQX}》（2017年修订）第六条 国家对医疗器械按照风险程度实行分类管理。",
        [(f"{YLQX}》（2017年修订）第六条", YLQX, YLQX, 6, False)],
    ),
    (
        "cut-title-mentioned-then-continued",
        f"{YLQX}》规定：\n第六条 国家对医疗器械按照风险程度实行分类管理。",
        [("第六条", None, YLQX, 6, True)],
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), [f[1:] for f in APART_FORMS], ids=[f[0] for f in APART_FORMS]
)
def test_form(text: str, expected: list[Row], lexicon: Lexicon) -> None:
    """Each form yields exactly the expected citations: the law is the one named apart."""
    assert rows(text, lexicon) == expected


def test_cut_title_keeps_its_version() -> None:
    """The note after a cut title is the version hint, as after a whole one."""
    (citation,) = extract(f"{YLQX}》（2017年修订）第六条", LEXICON)
    assert citation.version_hint == "2017年修订"


NOT_GLUED: list[tuple[str, str, list[tuple[str | None, int]]]] = [
    ("list-joined-by-dun", "劳动法、劳动合同法，第三十一条规定", []),
    ("list-joined-by-he", "《劳动法》第四十四条和劳动合同法，第三十一条", [(LDF, 44)]),
    ("list-of-titles-and-names", "《劳动法》，劳动合同法，第三十一条规定", []),
    (
        "names-one-per-line",
        "相关法律：\n中华人民共和国劳动法\n中华人民共和国劳动合同法\n第六条 用人单位",
        [],
    ),
    ("numbered-names-one-per-line", "1. 劳动法\n2. 劳动合同法\n第六条 用人单位", []),
    (
        "sentence-ending-in-a-name",
        "《劳动法》第三条规定了劳动者的权利。用人单位应当遵守劳动合同法\n第四条 用人单位应当依法建立规章制度",
        [(LDF, 3), (LDF, 4)],
    ),
    ("full-stop-between", f"{HYF}。第二十四条规定了继承。", []),
    ("semicolon-between", f"{HYF}；第二十四条规定了继承。", []),
    ("next-line-names-its-own-law", f"{LDF}\n《劳动合同法》第六条", [(LDHT, 6)]),
    ("comma-then-its-own-law", f"{LDF}，劳动合同法第六条", [(LDHT, 6)]),
    (
        "company-rule",
        "《劳动法》第四条规定用人单位应当依法建立规章制度。公司的考勤规定，第三条写明迟到扣款。",
        [(LDF, 4)],
    ),
    (
        "common-word-ending-in-fa",
        "《劳动法》第四条规定了规章制度。解决方法：第一条，先协商。",
        [(LDF, 4)],
    ),
    (
        "label-is-not-a-law",
        "《劳动法》第三十六条规定了工时。\n法律依据：第三十八条",
        [(LDF, 36), (LDF, 38)],
    ),
    ("closing-mark-mid-answer", f"根据规定，{YLQX}》第六条", []),
    ("ascii-quoted-non-law", '他说"好的"第三条', []),
]


@pytest.mark.parametrize(
    ("text", "expected"), [n[1:] for n in NOT_GLUED], ids=[n[0] for n in NOT_GLUED]
)
def test_not_glued(text: str, expected: list[tuple[str | None, int]], lexicon: Lexicon) -> None:
    """A list of laws, a sentence boundary or a non-statute never lends its name to an article."""
    assert [(c.law, c.article) for c in extract(text, lexicon)] == expected


@given(set_apart_citations(PLAIN_NAMES), plain_chinese, plain_chinese, st.sampled_from("。\n；"))
def test_set_apart_name_is_the_law(
    apart: tuple[str, str, int], before: str, after: str, boundary: str
) -> None:
    """A name set apart from its article by a comma, a colon or a line break is its law."""
    written, name, article = apart
    if "\n" in written:  # a name alone on its line: the line starts before it
        boundary = "\n"
    text = before + boundary + written + "。" + after
    (citation,) = extract(text, LEXICON)
    assert (citation.law, citation.article, citation.implicit) == (name, article, False)
    assert citation.surface == written[len(written) - len(citation.surface) :]


@given(
    st.sampled_from(PLAIN_NAMES),
    st.integers(min_value=1, max_value=1260),
    st.sampled_from(["。", "；", "！", "？", "。\n"]),
)
def test_sentence_end_never_glues(name: str, article: int, boundary: str) -> None:
    """A name ending a sentence lends nothing to the article opening the next one."""
    assert extract(f"{name}{boundary}第{article}条规定", LEXICON) == []


@given(
    st.lists(st.sampled_from(PLAIN_NAMES), min_size=2, max_size=4),
    st.sampled_from(["、", "和", "及", "与", "，", "\n"]),
    st.sampled_from(["，", "：", "\n"]),
    st.integers(min_value=1, max_value=1260),
)
def test_list_of_names_glues_nothing(
    names: list[str], joiner: str, between: str, article: int
) -> None:
    """After a list of names (、/和/，, or one per line) an article belongs to none of them."""
    if joiner == "\n" or between == "\n":
        joiner = between = "\n"
    assert extract(joiner.join(names) + f"{between}第{article}条", LEXICON) == []


@given(st.sampled_from(PLAIN_NAMES), st.integers(min_value=1, max_value=1260))
def test_ascii_quotes_read_as_title_marks(name: str, article: int) -> None:
    """ "name" cites as “name” and 《name》 do."""
    found = [
        [(c.law, c.article) for c in extract(f"{left}{name}{right}第{article}条", LEXICON)]
        for left, right in ('""', "“”", "《》")
    ]
    assert found[0] == found[1] == found[2] == [(name, article)]
