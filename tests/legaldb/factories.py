"""Small, hand-built CorpusRead values: the importer's input without the corpus reader."""

from __future__ import annotations

from datetime import date

from legaldb.models import (
    CorpusRead,
    Paragraph,
    ParsedArticle,
    ParsedLaw,
    ParsedVersion,
    SkippedFile,
)
from textnorm import article_label, strip_prc_prefix


def article(
    number: int,
    text: str,
    *,
    suffix: str | None = None,
    items: tuple[str, ...] = (),
    deleted: bool = False,
    chapter: tuple[str, ...] = ("第一章 总则",),
) -> ParsedArticle:
    """One article; a second 款 holding items when items are given."""
    paragraphs = [Paragraph(text)]
    if items:
        paragraphs.append(Paragraph("下列情形之一的：", items))
    full = "\n".join([text, *(["下列情形之一的：", *items] if items else [])])
    return ParsedArticle(
        number=number,
        suffix=suffix,
        label=article_label(number, suffix),
        text=full,
        paragraphs=tuple(paragraphs),
        deleted=deleted,
        chapter_path=chapter,
    )


def version(
    name: str,
    label: str,
    effective_from: date | None,
    effective_to: date | None,
    articles: tuple[ParsedArticle, ...],
    *,
    level: str = "法律",
    source: str | None = None,
) -> ParsedVersion:
    """One version of the law called name."""
    return ParsedVersion(
        law_name=name,
        level=level,
        category="测试",
        label=label,
        promulgated=effective_from,
        effective_from=effective_from,
        effective_rule="test" if effective_from else None,
        effective_to=effective_to,
        source=source or f"测试/{strip_prc_prefix(name)}({label}).md",
        articles=articles,
    )


def law(
    name: str, versions: tuple[ParsedVersion, ...], *, aliases: tuple[str, ...] = ()
) -> ParsedLaw:
    """A law with its canonical name, the name without the PRC prefix, and extra aliases."""
    short = strip_prc_prefix(name)
    return ParsedLaw(
        name=name,
        short_name=short,
        level=versions[0].level,
        issuer=None,
        aliases=(name, short, *aliases),
        versions=versions,
    )


COMPANY = "中华人民共和国测试公司法"
CIVIL_CODE = "中华人民共和国民法典"
LOCAL = "测试省物业管理条例"
SWITCH = date(2024, 7, 1)

OLD_COMPANY_ARTICLES = (
    article(1, "为了规范公司的组织和行为，保护公司、股东和债权人的合法权益，制定本法。"),
    article(2, "本法所称公司是指依照本法在中国境内设立的有限责任公司和股份有限公司。"),
    article(3, "公司是企业法人，有独立的法人财产，享有法人财产权。"),
    article(4, "股东依法享有资产收益、参与重大决策和选择管理者等权利。", deleted=True),
    article(5, "公司从事经营活动，必须遵守法律、行政法规，遵守社会公德、商业道德。"),
)
NEW_COMPANY_ARTICLES = (
    article(1, "为了规范公司的组织和行为，保护公司、股东、职工和债权人的合法权益，制定本法。"),
    article(2, "本法所称公司是指依照本法在中国境内设立的有限责任公司和股份有限公司。"),
    article(3, "国家鼓励公司参与社会公益活动，公布社会责任报告。"),
    article(4, "公司是企业法人，有独立的法人财产，享有法人财产权。"),
    article(4, "有限责任公司的股东以其认缴的出资额为限对公司承担责任。", suffix="之一"),
    article(5, "公司从事经营活动，应当遵守法律法规，遵守社会公德、商业道德，诚实守信。"),
    article(
        6,
        "公司应当接受监督。",
        items=("（一）接受政府监督；", "（二）接受社会公众监督；"),
    ),
)


def small_corpus(*, extra_laws: tuple[ParsedLaw, ...] = (), source: str = "test") -> CorpusRead:
    """Two versions of a company law, a 1,260-article civil code, a local regulation."""
    company = law(
        COMPANY,
        (
            version(COMPANY, "2018年修正", date(2018, 10, 26), SWITCH, OLD_COMPANY_ARTICLES),
            version(COMPANY, "2023年修订", SWITCH, None, NEW_COMPANY_ARTICLES),
        ),
        aliases=("测试公司法典",),
    )
    civil_code = law(
        CIVIL_CODE,
        (
            version(
                CIVIL_CODE,
                "2020年",
                date(2021, 1, 1),
                None,
                tuple(article(n, f"民法典第{n}条的条文，内容编号{n}。") for n in range(1, 1261)),
                source="民法典",
            ),
        ),
    )
    local = law(
        LOCAL,
        (
            version(
                LOCAL,
                "2019年",
                date(2019, 1, 1),
                None,
                (article(1, "为了规范物业管理活动，制定本条例。"),),
                level="地方性法规",
            ),
        ),
    )
    return CorpusRead(
        laws=(company, civil_code, local, *extra_laws),
        skipped=(SkippedFile("测试/坏文件.md", "no title"),),
        undated=("某法 2001年修正: no effective date",),
        source=source,
        snapshot="test-snapshot",
    )
