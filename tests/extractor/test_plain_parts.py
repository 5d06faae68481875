"""The plain law parts and runs built without Lark are exactly what the grammar parses."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lark.exceptions import LarkError

from extractor.candidates import REF_WORDS
from extractor.grammar import PARSER, _plain_law, _plain_run
from extractor.models import LawMention, Run
from tests.strategies import CITATION_ALPHABET

# Pieces of law parts and runs, the plain shapes and the characters next to them that end
# or change a token (spacing, notes, 的/中, commas, 第, marks, tags, ref words inside names).
_NUMERALS = ["一", "十", "百", "千", "零", "两", "四十七", "1", "12", "０", "１２", "1十"]
_RUN_PIECES = [
    *("第", "条", "款", "项", "之一", "之", "、", "，", ",", "和", "及", "与", "或", "或者"),
    *("以及", "至", "到", "-", "（", "）", "(", ")", " ", "\n", "<b>", "章", "编"),
    *_NUMERALS,
]
_LAW_PIECES = [
    *("《", "》", "“", "”", '"', "〈", "〉", " ", "\u3000", "\n", "的", "中", "，", "：", "第"),
    *("（", "）", "(", ")", "<b>", "</b>", "劳动法", "劳动合同", "民法典", "法", "规定", "编"),
    *("合同编", "-", "2018年修正", "以下简称", "若干问题的解释", "实施条例", "总则", "二章"),
    *("*", "本", "法律", "上述", "中华人民共和国", "的解释", "中的"),
    *REF_WORDS.split("|"),
]


def _joined(pieces: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces), min_size=1, max_size=14).map("".join)


def _plain_runs() -> st.SearchStrategy[str]:
    maybe = st.one_of(st.none(), st.sampled_from(_NUMERALS))
    spacing = st.sampled_from(["", " ", "  ", "\t", "\u3000"])  # around the article's number
    item = st.one_of(
        maybe,
        st.tuples(st.sampled_from("（("), st.sampled_from(_NUMERALS), st.sampled_from("）)")).map(
            "".join
        ),
        st.sampled_from(["（ 三 ）", "(\t4)", "（三", "（十一）"]),
    )
    member = st.tuples(
        st.sampled_from(_NUMERALS),
        st.one_of(st.none(), st.sampled_from(["之一", "之十二", "之百"])),
        maybe,
        item,
        spacing,
        spacing,
    ).map(
        lambda parts: (
            f"第{parts[4]}{parts[0]}{parts[5]}条{parts[1] or ''}"
            + ("" if parts[2] is None else f"第{parts[2]}款")
            + ("" if parts[3] is None else f"第{parts[3]}项")
        )
    )
    return st.lists(
        st.tuples(st.sampled_from(["、", "，", ",", "和", "及", "与"]), member), max_size=4
    ).flatmap(lambda rest: member.map(lambda first: first + "".join(sep + m for sep, m in rest)))


_law_parts = st.one_of(
    _joined(_LAW_PIECES),
    st.tuples(st.sampled_from(["《", "“", '"', ""]), _joined(_LAW_PIECES)).map("".join),
    st.text(alphabet=CITATION_ALPHABET, min_size=1, max_size=30),
)
_runs = st.one_of(
    _plain_runs(),
    st.tuples(_plain_runs(), _joined(_RUN_PIECES)).map("".join),
    _joined(_RUN_PIECES),
    st.text(alphabet=CITATION_ALPHABET, min_size=1, max_size=30),
)


def _lark(text: str, start: str) -> object:
    try:
        return PARSER.parse(text, start=start)
    except LarkError:
        return None


@given(_law_parts)
def test_plain_law_parts_parse_as_the_grammar_does(part: str) -> None:
    """A law part read without Lark is the LawMention the grammar builds for it."""
    plain = _plain_law(part)
    if plain is not None:
        assert plain == _lark(part, "law_part")


@given(_runs)
def test_plain_runs_parse_as_the_grammar_does(run: str) -> None:
    """A run read without Lark is the Run the grammar builds for it."""
    plain = _plain_run(run)
    if plain is not None:
        assert plain == _lark(run, "references")


@pytest.mark.parametrize(
    ("part", "expected"),
    [
        ("《劳动法》", LawMention("title", "劳动法", 0, 5)),
        ("《 劳动法 》\n", LawMention("title", "劳动法", 0, 7)),
        ("“宅基地使用登记暂行办法”", LawMention("quoted", "宅基地使用登记暂行办法", 0, 13)),
        ("本法", LawMention("ref_word", "本法", 0, 2)),
        ("民法典-合同编", LawMention("name", "民法典-合同编", 0, 7)),
        ("本法律", None),
        ("《劳动法》的", None),
        ("劳动法中", None),
    ],
    ids=["title", "spaced-title", "quoted", "ref-word", "name", "ref-word-first", "gap", "zhong"],
)
def test_plain_law_parts(part: str, expected: LawMention | None) -> None:
    """The plain shapes are read without Lark, the others are left to it."""
    assert _plain_law(part) == expected


def test_plain_runs() -> None:
    """A list of plain articles with their 款 is read without Lark; a range is left to it."""
    run = _plain_run("第四十七条第二款、第50条")
    assert run is not None and run == _lark("第四十七条第二款、第50条", "references")
    assert isinstance(run, Run) and [r.article for r in run.references] == [47, 50]
    for left_to_lark in [
        "第五条至第九条",
        "第五条第（百）项",
        "第五条第（一）、（二）项",
        "第五条 之一",
    ]:
        assert _plain_run(left_to_lark) is None, left_to_lark
    spaced = _plain_run("第 20 条、第 72 条第一款第（三）项")
    assert spaced == _lark("第 20 条、第 72 条第一款第（三）项", "references")
    assert spaced is not None and [(r.article, r.paragraph, r.item) for r in spaced.references] == [
        (20, None, None),
        (72, 1, 3),
    ]
