"""Every citation form of issue 3, table-driven: text in, the expected citations out."""

from __future__ import annotations

import pytest

from extractor import Citation, Lexicon, extract

LDHT = "中华人民共和国劳动合同法"
SB = "中华人民共和国社会保险法"
MFD = "中华人民共和国民法典"

# (surface, law, article, suffix, paragraph, item, implicit, range)
Row = tuple[str, str | None, int, str | None, int | None, int | None, bool, bool]


def rows(citations: list[Citation]) -> list[Row]:
    return [
        (
            c.surface,
            c.law,
            c.article,
            c.article_suffix,
            c.paragraph,
            c.item,
            c.implicit,
            c.range,
        )
        for c in citations
    ]


FORMS: list[tuple[str, str, list[Row]]] = [
    (
        "full-title",
        "根据《中华人民共和国社会保险法》第三十条规定",
        [("《中华人民共和国社会保险法》第三十条", SB, 30, None, None, None, False, False)],
    ),
    (
        "short-title-arabic",
        "《民法典》第1087条",
        [("《民法典》第1087条", MFD, 1087, None, None, None, False, False)],
    ),
    (
        "full-width-digits",
        "《中华人民共和国劳动法》第７５条，规定了",
        [
            (
                "《中华人民共和国劳动法》第７５条",
                "中华人民共和国劳动法",
                75,
                None,
                None,
                None,
                False,
                False,
            )
        ],
    ),
    (
        "spaces",
        "《婚姻法》 第 三十九 条 离婚时",
        [("《婚姻法》 第 三十九 条", "中华人民共和国婚姻法", 39, None, None, None, False, False)],
    ),
    (
        "chapter-between",
        "《社会保险法》第二章第十五条",
        [("《社会保险法》第二章第十五条", SB, 15, None, None, None, False, False)],
    ),
    (
        "part-and-named-chapter-between",
        "《刑法》总则第三章刑罚第六十八条",
        [
            (
                "《刑法》总则第三章刑罚第六十八条",
                "中华人民共和国刑法",
                68,
                None,
                None,
                None,
                False,
                False,
            )
        ],
    ),
    (
        "de-between",
        "《民法典》的第一千零六十二条",
        [("《民法典》的第一千零六十二条", MFD, 1062, None, None, None, False, False)],
    ),
    (
        "html-between",
        "<span>《民法典》</span>第一千零六十四条",
        [("《民法典》</span>第一千零六十四条", MFD, 1064, None, None, None, False, False)],
    ),
    (
        "paragraph",
        "《劳动合同法》第十条第二款",
        [("《劳动合同法》第十条第二款", LDHT, 10, None, 2, None, False, False)],
    ),
    (
        "paragraph-and-paren-item",
        "《劳动合同法》第四十一条第一款第（三）项",
        [("《劳动合同法》第四十一条第一款第（三）项", LDHT, 41, None, 1, 3, False, False)],
    ),
    (
        "ascii-paren-item",
        "《劳动合同法》第四十条第(三)项",
        [("《劳动合同法》第四十条第(三)项", LDHT, 40, None, None, 3, False, False)],
    ),
    (
        "item",
        "《劳动合同法》第三十八条第三项",
        [("《劳动合同法》第三十八条第三项", LDHT, 38, None, None, 3, False, False)],
    ),
    (
        "suffix",
        "《刑法》第一百二十条之一",
        [("《刑法》第一百二十条之一", "中华人民共和国刑法", 120, "之一", None, None, False, False)],
    ),
    (
        "list-articles",
        "《劳动合同法》第十九条、第二十一条",
        [
            ("《劳动合同法》第十九条", LDHT, 19, None, None, None, False, False),
            ("第二十一条", LDHT, 21, None, None, None, True, False),
        ],
    ),
    (
        "list-with-he",
        "《劳动合同法》第三十六条和第三十七条",
        [
            ("《劳动合同法》第三十六条", LDHT, 36, None, None, None, False, False),
            ("第三十七条", LDHT, 37, None, None, None, True, False),
        ],
    ),
    (
        "list-items",
        "《劳动合同法》第四十四条第四项、第五项",
        [
            ("《劳动合同法》第四十四条第四项", LDHT, 44, None, None, 4, False, False),
            ("第五项", LDHT, 44, None, None, 5, True, False),
        ],
    ),
    (
        "list-paragraphs",
        "《劳动合同法》第六十六条第一款和第二款",
        [
            ("《劳动合同法》第六十六条第一款", LDHT, 66, None, 1, None, False, False),
            ("第二款", LDHT, 66, None, 2, None, True, False),
        ],
    ),
    (
        "item-range",
        "《劳动合同法》第四十四条第（一）项至第（三）项",
        [
            (
                "《劳动合同法》第四十四条第（一）项至第（三）项",
                LDHT,
                44,
                None,
                None,
                1,
                False,
                True,
            ),
            ("第四十四条第（一）项至第（三）项", LDHT, 44, None, None, 2, True, True),
            ("第四十四条第（一）项至第（三）项", LDHT, 44, None, None, 3, True, True),
        ],
    ),
    (
        "compact-list",
        "《婚姻法》第十七、十九条的规定",
        [
            (
                "《婚姻法》第十七、十九条",
                "中华人民共和国婚姻法",
                17,
                None,
                None,
                None,
                False,
                False,
            ),
            ("第十七、十九条", "中华人民共和国婚姻法", 19, None, None, None, True, False),
        ],
    ),
    (
        "compact-paragraphs",
        "《民法典》第一千零七十九条第二、三款规定",
        [
            ("《民法典》第一千零七十九条第二、三款", MFD, 1079, None, 2, None, False, False),
            ("第一千零七十九条第二、三款", MFD, 1079, None, 3, None, True, False),
        ],
    ),
    (
        "compact-items-parenthesised",
        "依照《劳动合同法》第三十八条第一款第（一）、（二）项",
        [
            (
                "《劳动合同法》第三十八条第一款第（一）、（二）项",
                LDHT,
                38,
                None,
                1,
                1,
                False,
                False,
            ),
            ("第三十八条第一款第（一）、（二）项", LDHT, 38, None, 1, 2, True, False),
        ],
    ),
    (
        "compact-items",
        "《劳动合同法》第四十四条第一、二、四项",
        [
            ("《劳动合同法》第四十四条第一、二、四项", LDHT, 44, None, None, 1, False, False),
            ("第四十四条第一、二、四项", LDHT, 44, None, None, 2, True, False),
            ("第四十四条第一、二、四项", LDHT, 44, None, None, 4, True, False),
        ],
    ),
    (
        "compact-paragraphs-as-member",
        "《劳动合同法》第十条第一款、第二、三款",
        [
            ("《劳动合同法》第十条第一款", LDHT, 10, None, 1, None, False, False),
            ("第二、三款", LDHT, 10, None, 2, None, True, False),
            ("第二、三款", LDHT, 10, None, 3, None, True, False),
        ],
    ),
    (
        "list-member-without-di",
        "《劳动合同法》第三十九条、四十条第一款规定",
        [
            ("《劳动合同法》第三十九条", LDHT, 39, None, None, None, False, False),
            ("四十条第一款", LDHT, 40, None, 1, None, True, False),
        ],
    ),
    (
        "range-arabic",
        "《民法典》第1145至1147条",
        [
            ("《民法典》第1145至1147条", MFD, 1145, None, None, None, False, True),
            ("第1145至1147条", MFD, 1146, None, None, None, True, True),
            ("第1145至1147条", MFD, 1147, None, None, None, True, True),
        ],
    ),
    (
        "range-chinese",
        "《劳动合同法》第十条至第十二条",
        [
            ("《劳动合同法》第十条至第十二条", LDHT, 10, None, None, None, False, True),
            ("第十条至第十二条", LDHT, 11, None, None, None, True, True),
            ("第十条至第十二条", LDHT, 12, None, None, None, True, True),
        ],
    ),
    (
        "absurd-range-capped",
        "《民法典》第1至1000条",
        [
            ("《民法典》第1至1000条", MFD, 1, None, None, None, False, True),
            ("第1至1000条", MFD, 1000, None, None, None, True, True),
        ],
    ),
    (
        "continuation",
        "《女职工劳动保护规定》第十条规定：产假。第十一条规定：工资照付。",
        [
            (
                "《女职工劳动保护规定》第十条",
                "女职工劳动保护规定",
                10,
                None,
                None,
                None,
                False,
                False,
            ),
            ("第十一条", "女职工劳动保护规定", 11, None, None, None, True, False),
        ],
    ),
    (
        "continuation-after-gen-ju",
        "根据《中华人民共和国劳动法》第三十六条规定，可以协商。此外，根据第三十七条规定，可以解除。",
        [
            (
                "《中华人民共和国劳动法》第三十六条",
                "中华人民共和国劳动法",
                36,
                None,
                None,
                None,
                False,
                False,
            ),
            ("第三十七条", "中华人民共和国劳动法", 37, None, None, None, True, False),
        ],
    ),
    (
        "ben-fa-in-recital",
        "《劳动合同法》第八十七条 用人单位应当依照本法第四十七条规定的标准支付赔偿金。",
        [
            ("《劳动合同法》第八十七条", LDHT, 87, None, None, None, False, False),
            ("本法第四十七条", LDHT, 47, None, None, None, True, False),
        ],
    ),
    (
        "gai-fa",
        "根据中华人民共和国劳动合同法第三十八条规定，可以解除。而根据该法第三十五条规定，应当支付。",
        [
            ("中华人民共和国劳动合同法第三十八条", LDHT, 38, None, None, None, False, False),
            ("该法第三十五条", LDHT, 35, None, None, None, True, False),
        ],
    ),
    (
        "tong-fa",
        "《刑法》第二百六十四条规定了盗窃罪，同法第二百六十六条规定了诈骗罪。",
        [
            ("《刑法》第二百六十四条", "中华人民共和国刑法", 264, None, None, None, False, False),
            ("同法第二百六十六条", "中华人民共和国刑法", 266, None, None, None, True, False),
        ],
    ),
    (
        "shang-shu-fa-lv",
        "《著作权法》第十条列举了权利，上述法律第十一条规定了归属。",
        [
            ("《著作权法》第十条", "中华人民共和国著作权法", 10, None, None, None, False, False),
            ("上述法律第十一条", "中华人民共和国著作权法", 11, None, None, None, True, False),
        ],
    ),
    (
        "inner-title-angle",
        "《最高人民法院关于适用〈中华人民共和国民法典〉合同编通则若干问题的解释》第十条",
        [
            (
                "《最高人民法院关于适用〈中华人民共和国民法典〉合同编通则若干问题的解释》第十条",
                "最高人民法院关于适用《中华人民共和国民法典》合同编通则若干问题的解释",
                10,
                None,
                None,
                None,
                False,
                False,
            )
        ],
    ),
    (
        "inner-title-nested",
        "《最高人民法院关于适用《中华人民共和国民法典》合同编通则若干问题的解释》第十条",
        [
            (
                "《最高人民法院关于适用《中华人民共和国民法典》合同编通则若干问题的解释》第十条",
                "最高人民法院关于适用《中华人民共和国民法典》合同编通则若干问题的解释",
                10,
                None,
                None,
                None,
                False,
                False,
            )
        ],
    ),
    (
        "title-with-tail",
        "《婚姻法》若干问题的解释（三）第十条 夫妻一方",
        [
            (
                "《婚姻法》若干问题的解释（三）第十条",
                "最高人民法院关于适用《中华人民共和国婚姻法》若干问题的解释（三）",
                10,
                None,
                None,
                None,
                False,
                False,
            )
        ],
    ),
    (
        "bare-name-lexicon",
        "用人单位违反劳动合同法第八十二条的规定",
        [("劳动合同法第八十二条", LDHT, 82, None, None, None, False, False)],
    ),
    (
        "bare-full-name",
        "依照中华人民共和国刑法第二百六十四条",
        [
            (
                "中华人民共和国刑法第二百六十四条",
                "中华人民共和国刑法",
                264,
                None,
                None,
                None,
                False,
                False,
            )
        ],
    ),
    (
        "bare-name-after-prefix",
        "相关法条:\n社会法-劳动法第三十六条劳动合同双方可以协商一致",
        [("劳动法第三十六条", "中华人民共和国劳动法", 36, None, None, None, False, False)],
    ),
    (
        "bare-name-ending-in-zong-ze",
        "法律依据： 民法总则第一条  为了",
        [("民法总则第一条", "中华人民共和国民法总则", 1, None, None, None, False, False)],
    ),
    (
        "bare-name-zhong",
        "线上机构以消费者权益保护法中第二十五条为由",
        [
            (
                "消费者权益保护法中第二十五条",
                "中华人民共和国消费者权益保护法",
                25,
                None,
                None,
                None,
                False,
                False,
            )
        ],
    ),
    (
        "abbreviation",
        "《社保法》第三十三条规定",
        [("《社保法》第三十三条", SB, 33, None, None, None, False, False)],
    ),
    (
        "he-tong-fa-is-a-name",
        "1. 合同法第39条规定，当事人",
        [("合同法第39条", "中华人民共和国合同法", 39, None, None, None, False, False)],
    ),
    (
        "ji-ben-fa-is-a-name",
        "香港特别行政区基本法第十八条",
        [
            (
                "香港特别行政区基本法第十八条",
                "中华人民共和国香港特别行政区基本法",
                18,
                None,
                None,
                None,
                False,
                False,
            )
        ],
    ),
    (
        "quoted-name",
        "“宅基地使用登记暂行办法”第十条规定",
        [
            (
                "“宅基地使用登记暂行办法”第十条",
                "宅基地使用登记暂行办法",
                10,
                None,
                None,
                None,
                False,
                False,
            )
        ],
    ),
    (
        "invented-law-kept",
        "《中华人民共和国户籍法》第十九条规定",
        [
            (
                "《中华人民共和国户籍法》第十九条",
                "中华人民共和国户籍法",
                19,
                None,
                None,
                None,
                False,
                False,
            )
        ],
    ),
    (
        "alias-note",
        "《中华人民共和国著作权法》(以下简称《著作权法》)第十七条",
        [
            (
                "《中华人民共和国著作权法》(以下简称《著作权法》)第十七条",
                "中华人民共和国著作权法",
                17,
                None,
                None,
                None,
                False,
                False,
            )
        ],
    ),
    (
        "code-part-after-title",
        "《民法典》合同编第五百条",
        [("《民法典》合同编第五百条", MFD, 500, None, None, None, False, False)],
    ),
    (
        "code-part-bare",
        "民法典婚姻家庭编第一千零六十二条",
        [("民法典婚姻家庭编第一千零六十二条", MFD, 1062, None, None, None, False, False)],
    ),
    (
        "code-part-dashed-title",
        "根据《民法典-物权编》第四百七十四条规定",
        [("《民法典-物权编》第四百七十四条", MFD, 474, None, None, None, False, False)],
    ),
    (
        "category-dash-and-brackets",
        "相关法条:\n民法典-合同编【第九百四十六条】业主依照法定程序",
        [("民法典-合同编【第九百四十六条", MFD, 946, None, None, None, False, False)],
    ),
    (
        "bracketed-continuation",
        "《劳动法》第十七条 \n【第十八条】 \n用人单位",
        [
            ("《劳动法》第十七条", "中华人民共和国劳动法", 17, None, None, None, False, False),
            ("第十八条", "中华人民共和国劳动法", 18, None, None, None, True, False),
        ],
    ),
    (
        "title-split-by-html",
        "<span>《</span><span>民法典》</span>第一千一百二十三条",
        [
            (
                "《</span><span>民法典》</span>第一千一百二十三条",
                MFD,
                1123,
                None,
                None,
                None,
                False,
                False,
            )
        ],
    ),
    (
        "ref-word-after-a-verb",
        "《工伤保险条例》第三十八条：享受本条例第三十条规定的待遇。",
        [
            ("《工伤保险条例》第三十八条", "工伤保险条例", 38, None, None, None, False, False),
            ("本条例第三十条", "工伤保险条例", 30, None, None, None, True, False),
        ],
    ),
    (
        "bracket-heading",
        "【刑法第264条】盗窃公私财物",
        [("刑法第264条", "中华人民共和国刑法", 264, None, None, None, False, False)],
    ),
]


@pytest.mark.parametrize(("text", "expected"), [f[1:] for f in FORMS], ids=[f[0] for f in FORMS])
def test_form(text: str, expected: list[Row], lexicon: Lexicon) -> None:
    """Each written form yields exactly the expected citations, in order."""
    assert rows(extract(text, lexicon)) == expected


VERSIONS = [
    ("paren-after-title", "《公司法》（2018年修正）第十六条", "2018年修正"),
    ("year-before-title", "2018年《公司法》第十六条", "2018年"),
    ("yuan-before-title", "原《合同法》第五十二条", "原"),
    ("jiu-before-title", "旧《婚姻法》第十七条", "旧"),
    ("none", "《公司法》第十六条", None),
]


@pytest.mark.parametrize(("text", "hint"), [v[1:] for v in VERSIONS], ids=[v[0] for v in VERSIONS])
def test_version_hint(text: str, hint: str | None, lexicon: Lexicon) -> None:
    """A version qualifier written with the citation is kept as version_hint."""
    (citation,) = extract(text, lexicon)
    assert citation.version_hint == hint


WITHOUT_LEXICON = [
    ("title", "《劳动合同法》第八十二条", "劳动合同法", 82),
    ("prc-prefix-name", "根据中华人民共和国合同法第十一条规定", "中华人民共和国合同法", 11),
    ("he-tong-fa", "合同法第39条规定", "合同法", 39),
    ("tiao-li", "违反工伤保险条例第十四条", "工伤保险条例", 14),
    ("invented-standard", "工伤鉴定标准第十条（b）肋骨", "工伤鉴定标准", 10),
]


@pytest.mark.parametrize(
    ("text", "law", "article"),
    [w[1:] for w in WITHOUT_LEXICON],
    ids=[w[0] for w in WITHOUT_LEXICON],
)
def test_without_lexicon(text: str, law: str, article: int) -> None:
    """Without a lexicon, titles work and bare names are found where they end like a law."""
    (citation,) = extract(text)
    assert (citation.law, citation.article) == (law, article)


def test_grammar_and_pre_scan_know_the_same_ref_words() -> None:
    """The grammar's REF_WORD terminal lists exactly the pre-scan's ref words."""
    import re
    from pathlib import Path

    import extractor
    from extractor.candidates import REF_WORDS

    grammar = (Path(extractor.__file__).parent / "citation.lark").read_text(encoding="utf-8")
    terminal = re.search(r"^REF_WORD\.\d+: /(.*)/$", grammar, re.MULTILINE)
    assert terminal is not None
    assert set(terminal.group(1).split("|")) == set(REF_WORDS.split("|"))


@pytest.mark.parametrize(
    "word", ["该司法解释", "上述规定", "本条例", "该办法"], ids=["si-fa", "shang-shu", "ben", "gai"]
)
def test_ref_words(word: str, lexicon: Lexicon) -> None:
    """A ref word takes the law cited before it."""
    text = f"《工伤保险条例》第十四条规定了工伤。{word}第十五条规定了视同工伤。"
    citations = extract(text, lexicon)
    assert [(c.surface, c.law, c.implicit) for c in citations][1] == (
        f"{word}第十五条",
        "工伤保险条例",
        True,
    )


def test_only_the_first_member_has_the_written_law(lexicon: Lexicon) -> None:
    """law_as_written is set on the member that writes the law, None on the implicit ones."""
    citations = extract("《著作权法》第十二条,第十四条,第五十三条。", lexicon)
    assert [c.law_as_written for c in citations] == ["著作权法", None, None]
