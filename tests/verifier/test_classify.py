"""Every tier and reason against the real statute data, on both sides of each boundary."""

from __future__ import annotations

from datetime import date

import pytest

from legaldb import StatuteRepository
from verifier import check, classify

D = date.fromisoformat

# (id, law, article, suffix, 款, 项, as_of, hint, status, reason)
BOUNDARY_CASES = [
    ("公司法-2023-article-before", "公司法", 266, None, None, None, "2024-06-30", None,
     "notYetEffective", "not_yet_effective"),
    ("公司法-2023-article-after", "公司法", 266, None, None, None, "2024-07-01", None,
     "verified", "in_force"),
    ("民法典-before", "中华人民共和国民法典", 1087, None, None, None, "2020-12-31", None,
     "notYetEffective", "not_yet_effective"),
    ("民法典-after", "民法典", 1087, None, None, None, "2021-01-01", None,
     "verified", "in_force"),
    ("合同法-107-before-repeal", "合同法", 107, None, None, None, "2020-12-31", None,
     "verified", "in_force"),
    ("合同法-107-after-repeal", "中华人民共和国合同法", 107, None, None, None, "2021-01-01", None,
     "deprecated", "repealed"),
    ("民法典-1289-invented", "民法典", 1289, None, None, None, "2026-01-01", None,
     "unverified", "article_not_found"),
    ("民法典-1260-last", "民法典", 1260, None, None, None, "2026-01-01", None,
     "verified", "in_force"),
    ("民法典-1087-no-5th-paragraph", "民法典", 1087, None, 5, None, "2026-01-01", None,
     "unverified", "paragraph_not_found"),
    ("民法典-1087-1st-paragraph", "民法典", 1087, None, 1, None, "2026-01-01", None,
     "verified", "in_force"),
    ("户籍法-invented-law", "中华人民共和国户籍法", 10, None, None, None, "2026-01-01", None,
     "unverified", "law_not_found"),
    ("刑法-120之一", "刑法", 120, "之一", None, None, "2026-01-01", None, "verified", "in_force"),
    ("刑法-199-deleted", "刑法", 199, None, None, None, "2026-01-01", None,
     "deprecated", "article_deleted"),
    ("刑法-text-in-force-outside-data", "刑法", 264, None, None, None, "2009-08-26", None,
     "unverified", "version_not_in_data"),
    ("刑法-2020-amendment-in-force", "刑法", 264, None, None, None, "2024-02-29", None,
     "verified", "in_force"),
    ("刑法-2023-amendment-in-force", "刑法", 264, None, None, None, "2024-03-01", None,
     "verified", "in_force"),
    ("公司法-2018-named-version", "公司法", 16, None, None, None, "2026-01-01", "2018年修正",
     "deprecated", "superseded"),
    ("公司法-2018-named-version-while-in-force", "公司法", 16, None, None, None, "2024-06-30",
     "2018年修正", "verified", "in_force"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("law", "article", "suffix", "paragraph", "item", "as_of", "hint", "status", "reason"),
    [case[1:] for case in BOUNDARY_CASES],
    ids=[case[0] for case in BOUNDARY_CASES],
)
def test_tiers_and_reasons(
    statute_repository: StatuteRepository,
    law: str, article: int, suffix: str | None, paragraph: int | None, item: int | None,
    as_of: str, hint: str | None, status: str, reason: str,
) -> None:  # fmt: skip
    result = classify(statute_repository, law, article, suffix, paragraph, item, D(as_of), hint)
    assert (result.status, result.reason) == (status, reason)


def test_invented_article_reports_the_article_count(statute_repository: StatuteRepository) -> None:
    result = classify(statute_repository, "民法典", 1289, None, None, None, D("2026-01-01"))
    assert result.facts.article_count == 1260


def test_repealed_law_carries_date_provision_and_successor_text(
    statute_repository: StatuteRepository,
) -> None:
    result = classify(statute_repository, "合同法", 107, None, None, None, D("2021-01-01"))
    assert result.facts.repealed_on == "2021-01-01"
    assert result.facts.repealed_by and "第一千二百六十条" in result.facts.repealed_by
    successors = result.facts.successors
    assert [(s.law, s.article) for s in successors][:1] == [("中华人民共和国民法典", 577)]
    assert successors[0].text and "违约责任" in successors[0].text


def test_not_yet_effective_names_the_date(statute_repository: StatuteRepository) -> None:
    result = classify(statute_repository, "公司法", 266, None, None, None, D("2024-06-30"))
    assert result.facts.effective_from == "2024-07-01"


def test_verified_warns_of_an_upcoming_version(statute_repository: StatuteRepository) -> None:
    result = classify(statute_repository, "公司法", 1, None, None, None, D("2024-06-30"))
    assert result.status == "verified"
    assert result.facts.version_label and result.facts.version_label.startswith("2018")
    assert result.facts.upcoming_effective_from == "2024-07-01"


def test_invented_national_law_is_in_a_completely_covered_level(
    statute_repository: StatuteRepository,
) -> None:
    result = classify(
        statute_repository, "中华人民共和国户籍法", 10, None, None, None, D("2026-01-01")
    )
    assert result.facts.level == "法律"
    assert result.facts.level_covered is True


def test_missing_local_regulation_is_only_outside_the_data(
    statute_repository: StatuteRepository,
) -> None:
    result = classify(
        statute_repository, "拉萨市物业管理条例", 3, None, None, None, D("2026-01-01")
    )
    assert result.reason == "law_not_found"
    assert result.facts.level == "地方性法规"
    assert result.facts.level_covered is False


def test_superseded_citation_points_to_the_article_in_force(
    statute_repository: StatuteRepository,
) -> None:
    result = classify(
        statute_repository, "公司法", 16, None, None, None, D("2026-01-01"), "2018年修正"
    )
    assert result.facts.corresponding is not None
    assert result.facts.corresponding.version_label.startswith("2023")


# --- end to end: text in, verdicts out ---

ANSWER = (
    "根据《中华人民共和国民法典》第一千零八十七条，离婚时夫妻共同财产由双方协议处理。"
    "依据《合同法》第一百零七条，当事人一方不履行合同义务的，应当承担违约责任。"
    "另依《民法典》第一千二百八十九条，……"
)


def test_check_answer_end_to_end(statute_repository: StatuteRepository) -> None:
    result = check(ANSWER, statute_repository, D("2026-11-29"))
    statuses = [(v.citation.article, v.status, v.reason) for v in result.verdicts]
    assert statuses == [
        (1087, "verified", "in_force"),
        (107, "deprecated", "repealed"),
        (1289, "unverified", "article_not_found"),
    ]
    assert result.summary.total == 3 and result.summary.verified == 1


def test_quote_check_and_number_conflict(statute_repository: StatuteRepository) -> None:
    answer = (
        "《劳动合同法》第八十二条规定：“用人单位自用工之日起超过一个月不满一年未与劳动者订立书面劳动合同的，"
        "应当向劳动者每月支付三倍的工资。”"
    )
    (verdict,) = check(answer, statute_repository, D("2026-11-29")).verdicts
    assert verdict.status == "verified"
    assert verdict.quote_check.verdict in ("partial", "match")
    assert [(c.claim_value, c.article_values) for c in verdict.number_conflicts] == [(3, (2,))]


def test_faithful_quote_matches(statute_repository: StatuteRepository) -> None:
    answer = "《民法典》第五百七十七条规定：“当事人一方不履行合同义务或者履行合同义务不符合约定的，应当承担继续履行、采取补救措施或者赔偿损失等违约责任。”"
    (verdict,) = check(answer, statute_repository, D("2026-11-29")).verdicts
    assert verdict.quote_check.verdict == "match"
    assert verdict.number_conflicts == ()


def test_quote_of_another_article_is_found_where_it_is(
    statute_repository: StatuteRepository,
) -> None:
    answer = "《民法典》第五百七十八条规定：“当事人一方不履行合同义务或者履行合同义务不符合约定的，应当承担继续履行、采取补救措施或者赔偿损失等违约责任。”"
    (verdict,) = check(answer, statute_repository, D("2026-11-29")).verdicts
    assert verdict.quote_check.verdict == "mismatch"
    assert verdict.quote_check.found_in[0].article_label == "第五百七十七条"
    assert verdict.quote_check.found_in[0].where == "same_law"
