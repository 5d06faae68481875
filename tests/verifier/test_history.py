"""Statute history against the real data: earlier versions, repeals from every source, and an
older wording recited; each verdict's facts checked against the text they name."""

from __future__ import annotations

from datetime import date

import pytest

from legaldb import StatuteRepository
from verifier import check, classify

D = date.fromisoformat

# (id, law as cited, article, as of, status, reason, version label, effective from, phrase of
#  the article in that version (None: no text), repealed on, repealing provision or None)
HISTORY_CASES = [
    ("刑法-141-2020", "刑法", 141, "2023-01-01", "verified", "in_force", "2020年修正",
     "2021-03-01", "生产、销售假药的", None, None),
    ("公司法-16-2013", "公司法", 16, "2015-01-01", "verified", "in_force", "2013年修正",
     "2014-03-01", "公司向其他企业投资或者为他人提供担保", None, None),
    ("民事诉讼法-119-2017", "民事诉讼法", 119, "2020-01-01", "verified", "in_force",
     "2017年修正", "2017-07-01", "起诉必须符合下列条件", None, None),
    ("中外合资经营企业法-4-repealed", "中外合资经营企业法", 4, "2020-06-01", "deprecated",
     "repealed", None, None, None, "2020-01-01", "《中华人民共和国外商投资法》第四十二条"),
    ("学位条例-8-repealed", "学位条例", 8, "2025-06-01", "deprecated", "repealed",
     "2004年修正", "2004-08-28", "学士学位，由国务院授权的高等学校授予", "2025-01-01",
     "《中华人民共和国学位法》第四十五条"),
    ("预备役军官法-10-repealed", "预备役军官法", 10, "2024-01-01", "deprecated", "repealed",
     "2010年修正", "2010-08-28", "预备役军官", "2023-03-01",
     "《中华人民共和国预备役人员法》第六十五条"),
    ("合同法解释一-3-repealed", "合同法解释（一）", 3, "2021-06-01", "deprecated", "repealed",
     "1999年", "1999-12-29", "人民法院确认合同效力时", "2021-01-01",
     "最高人民法院关于废止部分司法解释及相关规范性文件的决定（法释〔2020〕16号）"),
    ("食品安全法-150-2015", "食品安全法", 150, "2016-01-01", "verified", "in_force",
     "2015年修订", "2015-10-01", "食品安全，指食品无毒、无害", None, None),
    ("商标法-63-2013", "商标法", 63, "2016-01-01", "verified", "in_force", "2013年修正",
     "2014-05-01", "侵犯商标专用权的赔偿数额", None, None),
]  # fmt: skip


# Versions whose effective date no source gives (rule 4 of verifier/classify.py): (id, law,
# article, as of, status, reason, version label held to, promulgated (None: a dated version),
# phrase of the article in that version).
UNDATED_CASES = [
    # The 2020 amendment (promulgated 2020-04-30) more than two years before as_of: in force.
    ("道路交通违法处理-79-settled", "道路交通安全违法行为处理程序规定", 79, "2023-08-01",
     "verified", "in_force", "2020年", "2020-04-30", "电子案卷"),
    # Within two years of its promulgation: which text was in force is not known.
    ("道路交通违法处理-79-recent", "道路交通安全违法行为处理程序规定", 79, "2021-01-01",
     "unverified", "effective_date_unknown", "2020年", "2020-04-30", None),
    # 反倾销条例 2001 (in force 2002-01-01) until its 2004 amendment was promulgated
    # (2004-03-31); the amendment's own date is unknown.
    ("反倾销条例-2-2001", "反倾销条例", 2, "2003-06-01", "verified", "in_force", "2001年",
     None, "进口产品以倾销方式进入中华人民共和国市场"),
    ("反倾销条例-2-2004-recent", "反倾销条例", 2, "2004-06-01", "unverified",
     "effective_date_unknown", "2004年修正", "2004-03-31", None),
    ("反倾销条例-2-2004-settled", "反倾销条例", 2, "2023-08-01", "verified", "in_force",
     "2004年修正", "2004-03-31", "进口产品以倾销方式进入中华人民共和国市场"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("law", "article", "as_of", "status", "reason", "label", "promulgated", "phrase"),
    [case[1:] for case in UNDATED_CASES],
    ids=[case[0] for case in UNDATED_CASES],
)  # fmt: skip
def test_versions_without_an_effective_date(
    statute_repository: StatuteRepository,
    law: str, article: int, as_of: str, status: str, reason: str, label: str,
    promulgated: str | None, phrase: str | None,
) -> None:  # fmt: skip
    """An undated version is in force two years after its promulgation, unknown before; the
    version before it ends when it was promulgated. Each fact checked against the data."""
    result = classify(statute_repository, law, article, None, None, None, D(as_of))
    assert (result.status, result.reason) == (status, reason)
    assert (result.facts.version_label, result.facts.promulgated) == (label, promulgated)
    version = result.version
    assert version is not None and version.label == label
    assert (version.effective_from is None) == (promulgated is not None)
    if promulgated is not None:
        assert version.promulgated == D(promulgated)
    if phrase is not None:
        text = statute_repository.article_text(version.id, article)
        assert text is not None and phrase in text.text


@pytest.mark.parametrize(
    ("law", "article", "as_of", "status", "reason", "label", "effective_from", "phrase",
     "repealed_on", "repealed_by"),
    [case[1:] for case in HISTORY_CASES],
    ids=[case[0] for case in HISTORY_CASES],
)  # fmt: skip
def test_history_verdicts_and_their_facts(
    statute_repository: StatuteRepository,
    law: str, article: int, as_of: str, status: str, reason: str, label: str | None,
    effective_from: str | None, phrase: str | None, repealed_on: str | None,
    repealed_by: str | None,
) -> None:  # fmt: skip
    result = classify(statute_repository, law, article, None, None, None, D(as_of))
    assert (result.status, result.reason) == (status, reason)
    facts = result.facts
    assert (facts.repealed_on, facts.repealed_by) == (repealed_on, repealed_by)
    if label is not None:
        assert (facts.version_label, facts.effective_from) == (label, effective_from)
    if phrase is None:  # known from its repeal only: no text, never "invented"
        assert result.version is not None and not result.version.has_text
        return
    assert result.version is not None and result.article is not None
    text = statute_repository.article_text(result.version.id, article)
    assert text is not None and phrase in text.text


def test_repealed_law_without_text_names_its_successor(
    statute_repository: StatuteRepository,
) -> None:
    """中外合资经营企业法 (no text in the data) is repealed with 外商投资法 as its successor."""
    facts = classify(statute_repository, "中外合资经营企业法", 4, None, None, None, D("2020-06-01"))
    assert facts.facts.successor_law == "中华人民共和国外商投资法"
    successor = statute_repository.resolve("外商投资法")
    assert successor is not None
    version = statute_repository.version_in_force(successor.id, D("2020-06-01"))
    assert version is not None
    clause = statute_repository.article_text(version.id, 42)
    assert clause is not None and "《中华人民共和国中外合资经营企业法》" in clause.text
    assert "同时废止" in clause.text


def test_interpretation_of_a_repealed_law_says_why(statute_repository: StatuteRepository) -> None:
    """合同法解释（二） is repealed with 合同法 (2021-01-01): the facts say it interprets it."""
    result = classify(statute_repository, "合同法解释（二）", 29, None, None, None, D("2022-01-01"))
    assert (result.status, result.reason) == ("deprecated", "repealed")
    assert result.facts.repeal_note is not None and "合同法" in result.facts.repeal_note
    before = classify(statute_repository, "合同法解释（二）", 29, None, None, None, D("2020-12-31"))
    assert before.status == "verified"


def test_repeal_by_a_later_text_stated_in_its_own_clause(
    statute_repository: StatuteRepository,
) -> None:
    """环境噪声污染防治法 is in force until 噪声污染防治法 (2022-06-05) repeals it, not after."""
    law = "环境噪声污染防治法"
    before = classify(statute_repository, law, 2, None, None, None, D("2022-06-04"))
    after = classify(statute_repository, law, 2, None, None, None, D("2023-08-01"))
    assert before.status == "verified"
    assert (after.status, after.reason) == ("deprecated", "repealed")
    assert after.facts.repealed_on == "2022-06-05"
    assert after.facts.successor_law == "中华人民共和国噪声污染防治法"


OLD_WORDING = (
    "根据《中华人民共和国安全生产法》第四条规定：“生产经营单位必须遵守本法和其他有关安全生产的法律、"
    "法规，加强安全生产管理，建立、健全安全生产责任制和安全生产规章制度，改善安全生产条件，"
    "推进安全生产标准化建设，提高安全生产水平，确保安全生产。”"
)


def test_older_wording_recited_names_its_version(statute_repository: StatuteRepository) -> None:
    """安全生产法第四条 as the 2014 text worded it, cited in 2023: superseded, 2014 named."""
    (verdict,) = check(OLD_WORDING, statute_repository, D("2023-08-01")).verdicts
    assert (verdict.status, verdict.reason) == ("deprecated", "superseded")
    assert verdict.facts.version_label == "2021年修正"  # the version in force
    assert verdict.facts.recited_version == "2014年修正"
    law = statute_repository.resolve("安全生产法")
    assert law is not None
    old = next(v for v in statute_repository.versions(law.id) if v.label == "2014年修正")
    text = statute_repository.article_text(old.id, 4)
    assert text is not None and "推进安全生产标准化建设" in text.text
    assert "flk:" in old.sources[0]


def test_a_law_known_only_from_its_repeal_is_extracted_and_classified(
    statute_repository: StatuteRepository,
) -> None:
    """外资企业法 has no text in any source: its name is in the lexicon, so a bare mention is
    extracted, and the verdict is repealed with its successor, not law_not_found."""
    assert "中华人民共和国外资企业法" in statute_repository.lexicon().values()
    (verdict,) = check(
        "外资企业法第五条规定了外资企业的设立。", statute_repository, D("2023-08-01")
    ).verdicts
    assert verdict.citation.law == "中华人民共和国外资企业法"
    assert (verdict.status, verdict.reason) == ("deprecated", "repealed")
    assert verdict.facts.successor_law == "中华人民共和国外商投资法"
