"""The corpus reader against the real data: the bundled archive and the shared lawrefbook tree."""

from __future__ import annotations

from datetime import date

import pytest

from legaldb.corpus import BUNDLED_ARCHIVE, read_corpus
from legaldb.corpus.dating import load_corrections
from legaldb.models import CorpusRead, ParsedArticle, ParsedLaw, ParsedVersion
from tests.conftest import SHARED_DIR

LAWREFBOOK = SHARED_DIR / "corpus" / "lawrefbook"


@pytest.fixture(scope="module")
def bundled() -> CorpusRead:
    """The bundled national corpus, read once for this module."""
    return read_corpus(BUNDLED_ARCHIVE)


@pytest.fixture(scope="module")
def laws(bundled: CorpusRead) -> dict[str, ParsedLaw]:
    """Laws of the bundled corpus by short name (unique among the national laws used here)."""
    return {law.short_name: law for law in bundled.laws}


def version(law: ParsedLaw, label: str) -> ParsedVersion:
    """The version of law with that label."""
    found = [v for v in law.versions if v.label == label]
    assert len(found) == 1, [v.label for v in law.versions]
    return found[0]


def article(version: ParsedVersion, number: int, suffix: str | None = None) -> ParsedArticle:
    """The article number (and suffix) of a version."""
    found = [a for a in version.articles if a.number == number and a.suffix == suffix]
    assert len(found) == 1, (version.source, number, suffix)
    return found[0]


VERSION_FACTS = [
    # short name, label, promulgated, effective_from, rule, effective_to
    ("公司法", "2018年修正", date(2018, 10, 26), date(2018, 10, 26), "metadata", date(2024, 7, 1)),
    ("公司法", "2023年修订", date(2023, 12, 29), date(2024, 7, 1), "final-article", None),
    ("民法典", "2020年", date(2020, 5, 28), date(2021, 1, 1), "header", None),
    ("民事诉讼法", "2023年修正", date(2023, 9, 1), date(2024, 1, 1), "correction", None),
    (
        "民事诉讼法",
        "2021年修正",
        date(2021, 12, 24),
        date(2022, 1, 1),
        "metadata",
        date(2024, 1, 1),
    ),
    ("立法法", "2023年修正", date(2023, 3, 13), date(2023, 3, 15), "correction", None),
    ("劳动合同法", "2012年修正", date(2012, 12, 28), date(2013, 7, 1), "correction", None),
    ("刑法", "2023年修正", date(2023, 12, 29), date(2024, 3, 1), "amending-act", None),
    ("刑法修正案（十二）", "2023年", date(2023, 12, 29), date(2024, 3, 1), "final-article", None),
    ("宪法", "2018年修正", date(2018, 3, 11), date(2018, 3, 11), "amending-act", None),
]


@pytest.mark.parametrize(
    ("short_name", "label", "promulgated", "effective_from", "rule", "effective_to"),
    VERSION_FACTS,
    ids=[f"{fact[0]}-{fact[1]}" for fact in VERSION_FACTS],
)
def test_version_dates(
    laws: dict[str, ParsedLaw],
    short_name: str,
    label: str,
    promulgated: date,
    effective_from: date,
    rule: str,
    effective_to: date | None,
) -> None:
    """Known dates of real versions, and the rule that established each."""
    found = version(laws[short_name], label)
    assert (found.promulgated, found.effective_from, found.effective_rule) == (
        promulgated,
        effective_from,
        rule,
    )
    assert found.effective_to == effective_to


def test_company_law_versions_in_effective_order(laws: dict[str, ParsedLaw]) -> None:
    """公司法: the 2018 amendment, then the 2023 revision, chained at 2024-07-01."""
    labels = [v.label for v in laws["公司法"].versions]
    assert labels == ["2018年修正", "2023年修订"]


def test_civil_code_is_one_version_of_1260_articles(laws: dict[str, ParsedLaw]) -> None:
    """民法典's eight 编 files make one version, 第一条 to 第一千二百六十条, none missing."""
    civil_code = laws["民法典"]
    assert civil_code.name == "中华人民共和国民法典"
    assert civil_code.level == "法律"
    assert len(civil_code.versions) == 1
    numbers = [a.number for a in civil_code.versions[0].articles]
    assert numbers == list(range(1, 1261))
    assert article(civil_code.versions[0], 1079).chapter_path == ("婚姻家庭编", "第四章 离婚")


def test_civil_code_article_1079_paragraphs_and_items(laws: dict[str, ParsedLaw]) -> None:
    """民法典第一千零七十九条: five 款, the third with five 项 （一）…（五）."""
    found = article(laws["民法典"].versions[0], 1079)
    assert [len(p.items) for p in found.paragraphs] == [0, 0, 5, 0, 0]
    third = found.paragraphs[2]
    assert third.text == "有下列情形之一，调解无效的，应当准予离婚："
    assert third.items[0] == "（一）重婚或者与他人同居；"
    assert third.items[4] == "（五）其他导致夫妻感情破裂的情形。"
    assert found.text.splitlines()[0] == found.paragraphs[0].text


def test_company_law_items(laws: dict[str, ParsedLaw]) -> None:
    """公司法(2023)第一百七十八条: the first 款 lists five 项, then two more 款."""
    found = article(version(laws["公司法"], "2023年修订"), 178)
    assert [len(p.items) for p in found.paragraphs] == [5, 0, 0]


CRIMINAL_LAW_ARTICLES = [
    (120, "之一", "第一百二十条之一", False),
    (120, "之六", "第一百二十条之六", False),
    (133, "之一", "第一百三十三条之一", False),
    (199, None, "第一百九十九条", True),
]


@pytest.mark.parametrize(
    ("number", "suffix", "label", "deleted"),
    CRIMINAL_LAW_ARTICLES,
    ids=[case[2] for case in CRIMINAL_LAW_ARTICLES],
)
def test_criminal_law_suffixes_and_deleted(
    laws: dict[str, ParsedLaw], number: int, suffix: str | None, label: str, deleted: bool
) -> None:
    """刑法 keeps 之一 articles as their own articles and marks 第一百九十九条 （删去）."""
    found = article(laws["刑法"].versions[-1], number, suffix)
    assert (found.label, found.deleted) == (label, deleted)


def test_criminal_law_has_one_deleted_article(laws: dict[str, ParsedLaw]) -> None:
    """Exactly one article of 刑法 is deleted in the current text: 第一百九十九条."""
    deleted = [a.label for a in laws["刑法"].versions[-1].articles if a.deleted]
    assert deleted == ["第一百九十九条"]


@pytest.mark.parametrize(
    ("short_name", "alias"),
    [
        ("个人信息保护法", "个保法"),
        ("刑事诉讼法", "刑诉法"),
        ("民事诉讼法", "民诉法"),
        ("行政诉讼法", "行诉法"),
        ("民法典", "民法典"),
        ("民法典", "中华人民共和国民法典"),
        ("劳动法", "劳动法"),
        ("治安管理处罚法", "治安管理处罚法"),
    ],
    ids=lambda value: str(value),
)
def test_aliases(laws: dict[str, ParsedLaw], short_name: str, alias: str) -> None:
    """Canonical name, name without 中华人民共和国 and curated abbreviations are aliases."""
    assert alias in laws[short_name].aliases


def test_inner_title_spellings(bundled: CorpusRead) -> None:
    """A title with an inner 《》 title also answers to its 〈〉 and short-inner spellings."""
    law = next(
        law
        for law in bundled.laws
        if law.name == "最高人民法院关于适用《中华人民共和国民事诉讼法》的解释"
    )
    assert "最高人民法院关于适用〈中华人民共和国民事诉讼法〉的解释" in law.aliases
    assert "最高人民法院关于适用《民事诉讼法》的解释" in law.aliases
    assert "民诉法解释" in law.aliases


@pytest.mark.parametrize(
    ("short_name", "level"),
    [
        ("宪法", "宪法"),
        ("公司法", "法律"),
        ("民法典", "法律"),
        ("刑法", "法律"),
        ("工伤保险条例", "行政法规"),
        ("最高人民法院关于适用《中华人民共和国民法典》时间效力的若干规定", "司法解释"),
    ],
    ids=lambda value: str(value),
)
def test_levels_from_folders(laws: dict[str, ParsedLaw], short_name: str, level: str) -> None:
    """The level of legislation comes from the corpus folder."""
    assert laws[short_name].level == level


def test_every_chain_is_consistent(bundled: CorpusRead) -> None:
    """Each version ends when the next begins (an undated next one: when it was promulgated);
    undated versions are all listed in undated."""
    undated = 0
    for law in bundled.laws:
        for current, following in zip(law.versions, law.versions[1:], strict=False):
            end = following.effective_from or following.promulgated
            assert current.effective_to == end, law.name
        assert law.versions[-1].effective_to is None
        for item in law.versions:
            assert item.articles, item.source
            assert item.law_name == law.name
            if item.effective_from is None:
                undated += 1
                assert item.effective_rule is None
                assert any(
                    entry.startswith(f"{law.name} {item.label}:") for entry in bundled.undated
                )
            else:
                assert item.effective_rule is not None
    assert undated == len(bundled.undated)


def test_every_correction_applies(bundled: CorpusRead) -> None:
    """Each entry of corrections.json matches a version of the bundled corpus."""
    applied = {
        (v.law_name, v.promulgated)
        for law in bundled.laws
        for v in law.versions
        if v.effective_rule == "correction"
    }
    assert len(applied) == len(load_corrections())


def test_cases_and_non_statutes_are_skipped_with_reasons(bundled: CorpusRead) -> None:
    """Court cases are not in the archive; files without articles are skipped by name."""
    reasons = {s.path: s.reason for s in bundled.skipped}
    assert not any(path.startswith("案例/") for path in reasons)
    assert reasons["其他/劳动仲裁和劳动诉讼的攻略.md"].startswith("no articles")
    assert all(reason for reason in reasons.values())


def test_snapshot_and_source_of_the_bundle(bundled: CorpusRead) -> None:
    """The archive names its snapshot; the source is the repository path, not this machine's."""
    assert bundled.snapshot == "lawrefbook 2f4c5c2 (2025-04-19)"
    assert bundled.source == "legaldb/data/lawrefbook-national.tar.xz"


@pytest.mark.skipif(not LAWREFBOOK.is_dir(), reason="the shared lawrefbook tree is not here")
def test_archive_reads_like_the_directory_without_dlc(bundled: CorpusRead) -> None:
    """The directory (with DLC/) gives the archive's laws plus local regulations only."""
    progress: list[tuple[int, int]] = []
    directory = read_corpus(LAWREFBOOK, lambda done, total: progress.append((done, total)))
    national = tuple(law for law in directory.laws if not law.versions[0].source.startswith("DLC/"))
    assert national == bundled.laws
    local = [law for law in directory.laws if law.versions[0].source.startswith("DLC/")]
    assert local and {law.level for law in local} == {"地方性法规"}
    assert progress[-1][0] == progress[-1][1] == len(progress)
    cases = [s for s in directory.skipped if s.path.startswith("案例/")]
    assert cases and all(s.reason == "court case (案例), not a statute" for s in cases)
