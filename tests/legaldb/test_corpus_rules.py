"""The corpus reader's rules, one stage at a time: history lines, articles, dates, aliases."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from legaldb.corpus.aliases import assign_aliases, name_variants
from legaldb.corpus.articles import split_articles
from legaldb.corpus.dates import file_name_date, parse_date
from legaldb.corpus.dating import establish, load_corrections
from legaldb.corpus.errors import UnparsableFile
from legaldb.corpus.headers import parse_header, split_file
from legaldb.corpus.models import ParsedFile
from legaldb.corpus.reader import parse_file
from tests.strategies import article_structures, corpus_phrases
from textnorm import article_label, int_to_cn

EVENTS = [
    (
        "2021年8月20日 第十三届全国人民代表大会常务委员会第三十次会议通过",
        [(date(2021, 8, 20), "通过", None)],
    ),
    ("2021年11月1日 施行", [(date(2021, 11, 1), "施行", date(2021, 11, 1))]),
    (
        "2018年10月26日 第十三届全国人民代表大会常务委员会第六次会议"
        "《关于修改〈中华人民共和国公司法〉的决定》第四次修正",
        [(date(2018, 10, 26), "修正", None)],
    ),
    (
        "2023年12月29日 第十四届全国人民代表大会常务委员会第七次会议第二次修订",
        [(date(2023, 12, 29), "修订", None)],
    ),
    (
        "1998年12月16日 最高人民检察院第九届检察委员会第二十一次会议第一次修订  "
        "2012年10月16日最高人民检察院第十一届检察委员会第八十次会议第二次修订）",
        [(date(1998, 12, 16), "修订", None), (date(2012, 10, 16), "修订", None)],
    ),
    (
        "2021年4月7日 最高人民法院审判委员会第1835次会议《关于修改〈…〉的决定》修正，"
        "该修正自2021年4月15日施行",
        [(date(2021, 4, 7), "修正", date(2021, 4, 15))],
    ),
    (
        "1982年12月4日 全国人民代表大会公告公布施行",
        [(date(1982, 12, 4), "公布", date(1982, 12, 4))],
    ),
    ("2019年10月1日 起生效）", [(date(2019, 10, 1), "施行", date(2019, 10, 1))]),
    ("1980年12月9日 国务院批准", [(date(1980, 12, 9), "批准", None)]),
    (
        "(2014年11月1日第十二届全国人民代表大会常务委员会第十一次会议通过)",
        [(date(2014, 11, 1), "通过", None)],
    ),
]


@pytest.mark.parametrize(("line", "expected"), EVENTS, ids=[line[:24] for line, _ in EVENTS])
def test_history_line_events(line: str, expected: list[tuple[date, str, date | None]]) -> None:
    """Each history line gives its dated events, their kind and any effective date stated."""
    header = parse_header(["# 某法", "", line])
    assert [(e.on, e.kind, e.effective) for e in header.events] == expected


def test_history_continuations_and_wrapped_titles() -> None:
    """Undated lines continue the line before; a wrapped repeat of the title is ignored."""
    header = parse_header(
        [
            "# 中华人民共和国农村土地承包经营纠纷调解仲裁法",
            "中华人民共和国农村土地",
            "承包经营纠纷调解仲裁法",
            "1984年4月4日 国务院",
            "中央军委发布",
            "发布之日施行",
        ]
    )
    assert header.history == ("1984年4月4日 国务院中央军委发布发布之日施行",)
    assert [(e.kind, e.effective) for e in header.events] == [("公布", date(1984, 4, 4))]
    assert any("repeats part of the title" in note for note in header.notes)


@pytest.mark.parametrize(
    ("lines", "kinds"),
    [
        (
            [
                "1979年7月1日 第五届全国人民代表大会第二次会议通过",
                "2023年12月29日 第十四届全国人民代表大会常务委员会第七次会议通过的"
                "《中华人民共和国刑法修正案（十二）》",
            ],
            ["通过", "修正"],
        ),
        (
            [
                "2014年12月18日 最高人民法院审判委员会第1636次会议通过",
                "2022年3月22日 最高人民法院审判委员会第1866次会议通过",
            ],
            ["通过", "修正"],
        ),
        (
            [
                "2016年7月21日 威海市第十六届人民代表大会常务委员会第二十九次会议通过",
                "2016年9月23日 山东省第十二届人民代表大会常务委员会第二十三次会议批准",
            ],
            ["通过", "批准"],
        ),
    ],
    ids=["amending-act", "same-body-again", "city-then-province"],
)
def test_later_adoptions(lines: list[str], kinds: list[str]) -> None:
    """A later 通过 of an amending act, or by the same body again, is an amendment."""
    assert [e.kind for e in parse_header(["# 某法", *lines]).events] == kinds


def test_no_title_is_unparsable() -> None:
    """A header without a `# title` line makes the file unparsable."""
    with pytest.raises(UnparsableFile, match="no `# title`"):
        parse_header(["2021年1月1日 施行"])


def test_split_file_strips_comments_and_zero_width() -> None:
    """Zero-width characters and <!-- --> comments vanish; INFO END splits head from body."""
    head, body = split_file("# 标题 <!-- 注 -->\n\n<!-- INFO END -->\n\u200b\n第一条 正文。")
    assert head == ["# 标题 ", ""]
    assert body == ["", "", "第一条 正文。"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2021年8月20日", date(2021, 8, 20)),
        ("二〇〇四年十月一日", date(2004, 10, 1)),
        ("一九九四年一月一日", date(1994, 1, 1)),
        ("２０１３年１月１日", date(2013, 1, 1)),
        ("2023年2月30日", None),
        ("本法自公布之日起施行", None),
    ],
    ids=lambda value: str(value),
)
def test_parse_date(text: str, expected: date | None) -> None:
    """Arabic, full-width and Chinese dates are read; impossible dates are not."""
    assert parse_date(text) == expected


@given(st.dates(min_value=date(1949, 10, 1), max_value=date(2099, 12, 31)), st.integers(0, 2))
def test_parse_date_round_trip(day: date, form: int) -> None:
    """A date written with Arabic, full-width or Chinese numerals reads back as itself."""
    if form == 0:
        text = f"{day.year}年{day.month}月{day.day}日"
    elif form == 1:
        text = f"{day.year}年{day.month}月{day.day}日".translate(
            str.maketrans("0123456789", "０１２３４５６７８９")
        )
    else:
        year = "".join("〇一二三四五六七八九"[int(c)] for c in str(day.year))
        text = f"{year}年{int_to_cn(day.month)}月{int_to_cn(day.day)}日"
    assert parse_date(text) == day


def test_file_name_date() -> None:
    """公司法(2023-12-29).md carries its date; other names carry none."""
    assert file_name_date("民法商法/公司法(2023-12-29).md") == date(2023, 12, 29)
    assert file_name_date("刑法/刑法.md") is None


def render(articles: list[tuple[int, str | None, tuple[int, ...]]], phrase: str) -> list[str]:
    """Body lines of a corpus file holding the given article structure."""
    lines = ["## 第一章 总则", ""]
    for number, suffix, items in articles:
        for index, count in enumerate(items):
            text = f"{article_label(number, suffix)} {phrase}" if index == 0 else phrase
            lines += [text, ""]
            lines += [f"（{int_to_cn(n)}）{phrase}" for n in range(1, count + 1)]
    return lines


@given(article_structures(), corpus_phrases)
def test_article_structure_round_trip(
    articles: list[tuple[int, str | None, tuple[int, ...]]], phrase: str
) -> None:
    """Articles written as a corpus body read back with their numbers, suffixes, 款 and 项."""
    parsed, _ = split_articles(render(articles, phrase), "某法")
    read = [(a.number, a.suffix, tuple(len(p.items) for p in a.paragraphs)) for a in parsed]
    assert read == articles
    assert all(a.chapter_path == ("第一章 总则",) for a in parsed)


ARTICLE_CASES = [
    (
        ["第一条 甲。", "第二条　乙。"],
        "某法",
        [(1, "甲。"), (2, "乙。")],
        "full-width space after the label",
    ),
    (["第一条 甲。", "笫二条 乙。"], "某法", [(1, "甲。"), (2, "乙。")], "笫 typo"),
    (["第一条 甲。", "第二 条乙。"], "某法", [(1, "甲。"), (2, "乙。")], "space in the label"),
    (["第一条 甲。", "第三条规定的除外。"], "某法", [(1, "甲。\n第三条规定的除外。")], "reference"),
    (
        ["第三十二条 宪法第一条修改为：", "第一百二十三条 新条文。", "第三十三条 乙。"],
        "中华人民共和国宪法修正案（2018年）",
        [(32, "宪法第一条修改为：\n第一百二十三条 新条文。"), (33, "乙。")],
        "an amending text quotes articles",
    ),
    (
        ["一、将刑法第一条修改为：", "“第一条 新。”", "二、本修正案自公布之日起施行。"],
        "中华人民共和国刑法修正案（二十）",
        [(1, "将刑法第一条修改为：\n“第一条 新。”"), (2, "本修正案自公布之日起施行。")],
        "numbered paragraphs",
    ),
]


@pytest.mark.parametrize(
    ("lines", "title", "expected", "case"), ARTICLE_CASES, ids=[c[3] for c in ARTICLE_CASES]
)
def test_article_lines(
    lines: list[str], title: str, expected: list[tuple[int, str]], case: str
) -> None:
    """Which lines start an article: labels, typos, references, quotes, 一、 numbering."""
    parsed, _ = split_articles(lines, title)
    assert [(a.number, a.text) for a in parsed] == expected


def test_deleted_article_and_gap_note() -> None:
    """（删去） marks an article deleted; a missing number is noted, not invented."""
    parsed, notes = split_articles(["第一条 甲。", "第二条 （删去）", "第五条 乙。"], "某法")
    assert [(a.number, a.deleted) for a in parsed] == [(1, False), (2, True), (5, False)]
    assert "not in the source text: 第三条 to 第四条" in notes


def test_repeated_article_with_the_same_text_is_kept_once() -> None:
    """An article repeated word for word is kept once, with a note."""
    parsed, notes = split_articles(["第一条 甲。", "第二条 乙。", "## 附", "第一条 甲。"], "某法")
    assert [a.number for a in parsed] == [1, 2]
    assert any("appears twice with the same text" in note for note in notes)


def file_with(history: list[str], body: list[str]) -> ParsedFile:
    """A ParsedFile of a corpus file with these history lines and body lines."""
    text = "\n\n".join(["# 中华人民共和国示例法", *history, "<!-- INFO END -->", *body])
    return parse_file("民法商法/示例法.md", text.encode())


ADOPTED = "2020年1月1日 第十三届全国人民代表大会常务委员会第十五次会议通过"
REVISED = "2022年6月1日 第十三届全国人民代表大会常务委员会第三十次会议修订"
AMENDED = (
    "2022年6月1日 第十三届全国人民代表大会常务委员会第三十次会议《关于修改〈示例法〉的决定》修正"
)

DATING_CASES = [
    (
        [ADOPTED, "2020年3月1日 施行"],
        ["第一条 本法自2020年5月1日起施行。"],
        date(2020, 3, 1),
        "header",
    ),
    ([ADOPTED], ["第一条 本法自2020年5月1日起施行。"], date(2020, 5, 1), "final-article"),
    ([ADOPTED], ["第一条 本法自公布之日起施行。"], date(2020, 1, 1), "on-publication"),
    ([ADOPTED, REVISED], ["第一条 本法自2022年9月1日起施行。"], date(2022, 9, 1), "final-article"),
    ([ADOPTED, REVISED], ["第一条 本法自2020年5月1日起施行。"], None, None),
    ([ADOPTED, AMENDED], ["第一条 本法自2020年5月1日起施行。"], None, None),
    ([ADOPTED, AMENDED], ["第一条 本法自公布之日起施行。"], None, None),
    ([ADOPTED, "2020年3月1日 施行", AMENDED], ["第一条 甲。"], None, None),
]


@pytest.mark.parametrize(
    ("history", "body", "effective", "rule"),
    DATING_CASES,
    ids=[
        "header",
        "final-article",
        "on-publication",
        "revision-final-article",
        "revision-date-before-promulgation",
        "amendment-keeps-old-date",
        "amendment-on-publication-not-used",
        "old-header-date-before-amendment",
    ],
)
def test_effective_date_rules(
    history: list[str], body: list[str], effective: date | None, rule: str | None
) -> None:
    """The effective-date rules in order; an amendment never takes the old final article."""
    file = file_with(history, body)
    dating = establish("中华人民共和国示例法", file, file.articles, load_corrections())
    assert (dating.effective_from, dating.effective_rule) == (effective, rule)


def test_correction_wins_over_everything() -> None:
    """A reviewed correction overrides the header's own 施行 line."""
    corrections = load_corrections(
        '[{"law": "示例法", "promulgated": "2020-01-01", "effective_from": "2020-02-02",'
        ' "source": "决定", "note": ""}]'
    )
    file = file_with([ADOPTED, "2020年3月1日 施行"], ["第一条 甲。"])
    dating = establish("中华人民共和国示例法", file, file.articles, corrections)
    assert (dating.effective_from, dating.effective_rule) == (date(2020, 2, 2), "correction")


def test_amending_act_dates_an_amendment() -> None:
    """An amendment by a named act takes that act's effective date when it is known."""
    act = "2022年6月1日 第十三届全国人民代表大会常务委员会第三十次会议通过的《中华人民共和国示例法修正案》"
    file = file_with([ADOPTED, act], ["第一条 甲。"])

    def lookup(name: str, on: date) -> date | None:
        return (
            date(2022, 7, 1)
            if (name, on) == ("中华人民共和国示例法修正案", date(2022, 6, 1))
            else None
        )

    dating = establish("中华人民共和国示例法", file, file.articles, {}, lookup)
    assert (dating.label, dating.effective_from, dating.effective_rule) == (
        "2022年修正",
        date(2022, 7, 1),
        "amending-act",
    )


@pytest.mark.parametrize(
    ("history", "label"),
    [([ADOPTED], "2020年"), ([ADOPTED, REVISED], "2022年修订"), ([ADOPTED, AMENDED], "2022年修正")],
    ids=["original", "revision", "amendment"],
)
def test_version_labels(history: list[str], label: str) -> None:
    """The label is the last 修订/修正 event, else the adoption year."""
    file = file_with(history, ["第一条 甲。"])
    assert establish("示例法", file, file.articles, {}).label == label


def test_name_variants_of_inner_titles() -> None:
    """A title with an inner title answers to 《》, 〈〉 and the inner name without the PRC."""
    variants = name_variants("最高人民法院关于适用《中华人民共和国民法典》时间效力的若干规定")
    assert "最高人民法院关于适用〈中华人民共和国民法典〉时间效力的若干规定" in variants
    assert "最高人民法院关于适用《民法典》时间效力的若干规定" in variants
    assert name_variants("中华人民共和国公司法") == ["中华人民共和国公司法", "公司法"]


def test_ambiguous_aliases_are_dropped() -> None:
    """An abbreviation two laws would share is dropped; a law's own name is never dropped."""
    aliases, notes = assign_aliases(
        ["中华人民共和国甲法", "甲法", "中华人民共和国乙法"],
        {"乙": "中华人民共和国乙法", "丙": "中华人民共和国丙法"},
    )
    assert "甲法" in aliases["甲法"] and "甲法" in aliases["中华人民共和国甲法"]
    assert "乙" in aliases["中华人民共和国乙法"]
    assert any("丙法: law not in the corpus" in note for note in notes)
