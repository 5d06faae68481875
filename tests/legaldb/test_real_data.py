"""Point-in-time facts against the real bundled corpus, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import date

import pytest

from legaldb.repository import StatuteRepository

CIVIL_CODE = "中华人民共和国民法典"


def _law_id(repository: StatuteRepository, name: str) -> int:
    law = repository.resolve(name)
    assert law is not None, name
    return law.id


@pytest.mark.parametrize(
    ("as_of", "promulgated", "effective_from"),
    [
        (date(2024, 6, 30), date(2018, 10, 26), None),
        (date(2024, 7, 1), date(2023, 12, 29), date(2024, 7, 1)),
    ],
    ids=["2024-06-30-is-2018", "2024-07-01-is-2023"],
)
def test_company_law_version_in_force(
    statute_repository: StatuteRepository,
    as_of: date,
    promulgated: date,
    effective_from: date | None,
) -> None:
    """公司法: the 2018 amendment until 2024-06-30, the 2023 revision from 2024-07-01."""
    version = statute_repository.version_in_force(_law_id(statute_repository, "公司法"), as_of)
    assert version is not None
    assert version.promulgated == promulgated
    if effective_from is not None:
        assert version.effective_from == effective_from
    else:
        assert version.effective_to == date(2024, 7, 1)


def test_civil_code_not_in_force_before_2021(statute_repository: StatuteRepository) -> None:
    """民法典 as of 2020-12-31 has no version in force, and is not repealed."""
    found = statute_repository.lookup("民法典", 1087, None, date(2020, 12, 31))
    assert found.law is not None and found.law.name == CIVIL_CODE
    assert found.version is None and found.repeal is None
    on_day_one = statute_repository.lookup("民法典", 1087, None, date(2021, 1, 1))
    assert on_day_one.version is not None and on_day_one.article is not None


def test_civil_code_has_1260_articles(statute_repository: StatuteRepository) -> None:
    """民法典 has 1,260 articles, 第一条 to 第一千二百六十条, none missing."""
    version = statute_repository.latest_version(_law_id(statute_repository, CIVIL_CODE))
    assert version is not None
    assert statute_repository.article_count(version.id) == 1260
    numbers = [a.info.number for a in statute_repository.articles_text(version.id)]
    assert numbers == list(range(1, 1261))


def test_contract_law_repealed_with_successor(statute_repository: StatuteRepository) -> None:
    """合同法 as of 2026-01-01: repealed on 2021-01-01; 第一百零七条 -> 民法典第五百七十七条."""
    found = statute_repository.lookup("合同法", 107, None, date(2026, 1, 1))
    assert found.law is not None and found.version is None
    assert found.repeal is not None and found.repeal.repealed_on == date(2021, 1, 1)
    code_id = _law_id(statute_repository, CIVIL_CODE)
    assert found.repeal.successor_law_id == code_id
    successors = statute_repository.successors(found.law.id, 107)
    assert [(s.to_law_id, s.to_number) for s in successors] == [(code_id, 577)]
    code_version = statute_repository.version_in_force(code_id, date(2021, 1, 1))
    assert code_version is not None and successors[0].to_version_id == code_version.id
    target = statute_repository.article_text(code_version.id, 577)
    assert target is not None and "违约责任" in target.text


def test_criminal_law_suffix_and_deleted_articles(statute_repository: StatuteRepository) -> None:
    """刑法 has 第一百二十条之一, and 第一百九十九条 is kept and marked deleted."""
    suffixed = statute_repository.lookup("刑法", 120, "之一", date(2024, 1, 1))
    assert suffixed.article is not None and suffixed.article.label == "第一百二十条之一"
    deleted = statute_repository.lookup("刑法", 199, None, date(2024, 1, 1))
    assert deleted.article is not None and deleted.article.deleted


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("民法典", CIVIL_CODE),
        ("中华人民共和国公司法", "中华人民共和国公司法"),
        ("公司法", "中华人民共和国公司法"),
        ("《中华人民共和国民法典》", CIVIL_CODE),
        ("中华人民共和国合同法", "中华人民共和国合同法"),
    ],
    ids=["civil-code", "company-full", "company-short", "title-marks", "repealed"],
)
def test_aliases(statute_repository: StatuteRepository, written: str, canonical: str) -> None:
    """Common names resolve to the canonical law."""
    law = statute_repository.resolve(written)
    assert law is not None and law.name == canonical


def test_paragraphs_and_items(statute_repository: StatuteRepository) -> None:
    """民法典第一千零七十九条 has several 款; its structure is in the index, its text lazily."""
    found = statute_repository.lookup("民法典", 1079, None, date(2024, 1, 1))
    assert found.article is not None and found.version is not None
    assert found.article.paragraph_count >= 3
    text = statute_repository.article_text(found.version.id, 1079)
    assert text is not None and len(text.paragraphs) == found.article.paragraph_count
    assert "离婚" in text.text


def test_manifest_claims_national_laws(statute_repository: StatuteRepository) -> None:
    """The bundled corpus claims completeness for 宪法 and 法律 only, and lists skipped files."""
    manifest = statute_repository.manifest()
    assert manifest.complete_levels == ("宪法", "法律")
    assert statute_repository.covers_completely("法律")
    assert not statute_repository.covers_completely("地方性法规")
    assert manifest.skipped  # files without articles, duplicates (see `lexgate db stats`)
    assert "2f4c5c2" in manifest.snapshot


def test_aligned_successors_between_company_law_versions(
    statute_repository: StatuteRepository,
) -> None:
    """The 2018 and 2023 texts of 公司法 are aligned: most old articles find a successor."""
    law_id = _law_id(statute_repository, "公司法")
    old, new = statute_repository.versions(law_id)[-2:]
    old_articles = statute_repository.articles_text(old.id)
    aligned = [
        s
        for a in old_articles
        for s in statute_repository.successors(law_id, a.info.number, a.info.suffix, old.id)
        if s.to_version_id == new.id
    ]
    assert len(aligned) >= len(old_articles) // 2
    assert all(s.kind == "aligned" and (s.similarity or 0) >= 0.6 for s in aligned)
    # 2018 第一条 (立法目的) is the 2023 第一条, rewritten
    first = next(s for s in aligned if s.from_number == 1)
    assert first.to_number == 1 and first.changed
