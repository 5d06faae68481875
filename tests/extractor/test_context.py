"""Context resolution: 本法/该法, continuations and their antecedents, unknown laws."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from extractor import Lexicon, context, extract


def laws(text: str, lexicon: Lexicon | None) -> list[tuple[str, str | None, int, bool]]:
    return [(c.surface, c.law, c.article, c.implicit) for c in extract(text, lexicon)]


def test_ben_fa_follows_the_recited_law(lexicon: Lexicon) -> None:
    """本法 inside a recited article is the law recited, even after another law was cited."""
    text = (
        "《刑法》第十七条规定了责任年龄。"
        "《中华人民共和国婚姻法》第一千零六十三条，其中不包括本法第一千零六十二条规定的财产。"
    )
    assert laws(text, lexicon)[-1] == (
        "本法第一千零六十二条",
        "中华人民共和国婚姻法",
        1062,
        True,
    )


def test_ben_fa_after_a_title_without_article(lexicon: Lexicon) -> None:
    """本法 may refer to a law mentioned by its title without an article."""
    text = "《劳动合同法》对此有规定：用人单位依照本法第四十条解除劳动合同的，应当支付经济补偿。"
    assert laws(text, lexicon) == [("本法第四十条", "中华人民共和国劳动合同法", 40, True)]


def test_ben_fa_without_antecedent_has_no_law(lexicon: Lexicon) -> None:
    """本法第十条 with no law before it is kept, with law None (cannot be verified)."""
    assert laws("本法第十条规定了适用范围。", lexicon) == [("本法第十条", None, 10, True)]


def test_continuation_uses_the_last_law(lexicon: Lexicon) -> None:
    """A bare 第…条 continues the law cited last, not an earlier one."""
    text = "《劳动法》第三十六条和《劳动合同法》第三十七条都有规定。\n第三十八条规定了解除。"
    assert laws(text, lexicon)[-1] == ("第三十八条", "中华人民共和国劳动合同法", 38, True)


def test_list_member_after_ben_fa_is_implicit(lexicon: Lexicon) -> None:
    """本法第一千零六十二条、第一千零六十三条: both implicit, both of the recited law."""
    text = (
        "《民法典》第一千零六十五条：没有约定的，适用本法第一千零六十二条、第一千零六十三条的规定。"
    )
    assert laws(text, lexicon)[1:] == [
        ("本法第一千零六十二条", "中华人民共和国民法典", 1062, True),
        ("第一千零六十三条", "中华人民共和国民法典", 1063, True),
    ]


def test_unknown_law_keeps_its_written_name() -> None:
    """An invented law not in any lexicon keeps its written name, with or without a lexicon."""
    citation = extract("《中华人民共和国房产权益保护法》第三十三条")[0]
    assert (citation.law_as_written, citation.law) == (
        "中华人民共和国房产权益保护法",
        "中华人民共和国房产权益保护法",
    )


def test_json_fields(lexicon: Lexicon) -> None:
    """to_json gives exactly the issue's fields plus range, version_hint and claim."""
    text = "根据《劳动法》第五十条规定：“工资按月支付。”"
    (citation,) = extract(text, lexicon)
    data = citation.to_json()
    assert list(data) == [
        "surface",
        "start",
        "end",
        "law_as_written",
        "law",
        "implicit",
        "article",
        "article_suffix",
        "paragraph",
        "item",
        "quote",
        "range",
        "version_hint",
        "claim",
    ]
    start = text.index("工资")
    assert data["quote"] == {"text": "工资按月支付。", "start": start, "end": start + 7}
    assert data["law"] == "中华人民共和国劳动法"


_PREFIX_PIECES = [
    *("原", "旧", "年", "2018年", "二〇一八年", "修订", "修正", "修订前", "的", "版", "\n", "\r"),
    *("。", "，", " ", "规定", "《", "》", "第"),
]


@given(st.lists(st.sampled_from(_PREFIX_PIECES), max_size=8).map("".join), st.data())
def test_the_prefix_gate_skips_only_what_cannot_match(text: str, data: st.DataObject) -> None:
    """Whatever the characters before a law, the version prefix found is the pattern's own
    (the gates before it only skip where the pattern cannot match)."""
    start = data.draw(st.integers(0, len(text)))
    match = context._PREFIX_RE.search(text[max(0, start - 10) : start])
    assert context._version_prefix(text, start) == (match.group("hint") if match else None)
    if match is not None:
        assert start and text[start - 1] in context._PREFIX_NEXT_CHARS


def test_a_prefix_before_a_line_break_is_kept(lexicon: Lexicon) -> None:
    """原 and a line break before the title: its $ matches before the break."""
    (citation,) = extract("原\n《合同法》第五十二条", lexicon)
    assert citation.version_hint == "原"
    (citation,) = extract("。\n《合同法》第五十二条", lexicon)
    assert citation.version_hint is None
