"""Forms from real LawBench answers, table-driven: a category written before the name."""

from __future__ import annotations

import pytest

from extractor import Lexicon, extract
from tests.extractor.conftest import ALIASES, LAW_NAMES

GRDZ = "中华人民共和国个人独资企业法"
CJR = "中华人民共和国残疾人保障法"
GSF = "中华人民共和国公司法"
LNR = "中华人民共和国老年人权益保障法"
JTCX = "道路交通安全违法行为处理程序规定"

# Real names the forms below cite, next to the shared test lexicon's.
MORE_NAMES = (GRDZ, CJR, LNR, JTCX, "医疗器械监督管理条例")

# (surface, law_as_written, law, article, implicit)
Row = tuple[str, str | None, str | None, int, bool]


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    names = (*LAW_NAMES, *MORE_NAMES)
    return Lexicon.from_mapping({**{name: name for name in names}, **ALIASES})


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
