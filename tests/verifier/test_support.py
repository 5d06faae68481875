"""Support verdicts on real article texts (the bundled corpus, both backends), one per kind of
stated content, with the evidence each must carry."""

from __future__ import annotations

from datetime import date

import pytest

from legaldb import StatuteRepository
from verifier import check, verdict_to_json
from verifier.content import version_index
from verifier.support import _cited_and_top_other, content_bigrams, item_passages
from verifier.textnorm_quote import normalize_for_compare

AS_OF = date(2023, 8, 1)
LABOUR = "《中华人民共和国劳动合同法》"
ART_82_FIRST = "用人单位自用工之日起超过一个月不满一年未与劳动者订立书面劳动合同的，应当向劳动者每月支付二倍的工资。"
DISABLED = "《中华人民共和国残疾人保障法》"
# 残疾人 defined in a model's words: none of 第二条's wording, but the term 第二条 defines.
OWN_DEFINITION = (
    "残疾人是指因身体、智力、精神等原因，不能适应社会生活需要，需要得到特殊保护和帮助的人。"
)

# (id, answer, expected verdict, the evidence passage, differences as (kind, stated, article),
#  found_in article labels)
CASES = [
    ("verbatim", f"{LABOUR}第八十二条规定：“{ART_82_FIRST}”", "supports", ART_82_FIRST, [], []),
    (
        "one-paragraph-of-several",
        f"{LABOUR}第十九条规定：“同一用人单位与同一劳动者只能约定一次试用期。”",
        "supports",
        "同一用人单位与同一劳动者只能约定一次试用期。",
        [],
        [],
    ),
    (
        "one-item-read-into-its-lead",
        f"{LABOUR}第三十八条规定：“用人单位未及时足额支付劳动报酬的，劳动者可以解除劳动合同。”",
        "supports",
        "用人单位未及时足额支付劳动报酬的，劳动者可以解除劳动合同。",
        [],
        [],
    ),
    (
        "plain-words-paraphrase",
        f"{LABOUR}第八十二条规定：“用人单位用工超过一个月不满一年没有与劳动者签订书面劳动合同的，"
        "应当每月向劳动者支付二倍工资。”",
        "supports",
        ART_82_FIRST,
        [],
        [],
    ),
    (
        "changed-number",
        f"{LABOUR}第八十二条规定：“{ART_82_FIRST.replace('二倍', '三倍')}”",
        "partly",
        ART_82_FIRST,
        [("number", "三倍", "二倍")],
        [],
    ),
    (
        "dropped-condition",
        "《中华人民共和国社会保险法》第十六条规定：“参加基本养老保险的个人，达到法定退休年龄时，"
        "可以按月领取基本养老金。”",
        "partly",
        "参加基本养老保险的个人，达到法定退休年龄时累计缴费满十五年的，按月领取基本养老金。",
        [("condition", "", "达到法定退休年龄时累计缴费满十五年的")],
        [],
    ),
    (
        "plain-words-the-cited-article-matches-best",
        f"{LABOUR}第二十二条规定：“公司出钱给员工培训的，可以和员工约定服务期，员工违约要赔培训费。”",
        "partly",
        "用人单位为劳动者提供专项培训费用，对其进行专业技术培训的，可以与该劳动者订立协议，"
        "约定服务期。",
        [("condition", "", "对其进行专业技术培训的")],
        [],
    ),
    (
        "the-articles-wording-with-lay-words-added",
        f"{LABOUR}第十条规定：“建立劳动关系要签书面劳动合同，不签的公司要受罚。”",
        "partly",
        "建立劳动关系，应当订立书面劳动合同。",
        [],
        [],
    ),
    (
        "near-identical-article-worded-slightly-closer",
        "《中华人民共和国劳动争议调解仲裁法》第五十条规定：“对仲裁裁决不服的，"
        "可以自收到仲裁裁决书之日起十五日内向人民法院提起诉讼。”",
        "partly",
        None,
        [("condition", "", "当事人对本法第四十七条规定以外的其他劳动争议案件的仲裁裁决不服的")],
        ["第四十八条"],
    ),
    (
        "a-definition-of-the-term-the-article-defines-in-own-words",
        f"{DISABLED}第二条规定：“{OWN_DEFINITION}”",
        "partly",
        None,
        [],
        [],
    ),
    (
        "the-same-definition-under-an-article-defining-nothing",
        f"{DISABLED}第三条规定：“{OWN_DEFINITION}”",
        "unsupported",
        None,
        [],
        [],
    ),
    (
        "another-articles-content",
        f"{LABOUR}第八十二条规定：“经济补偿按劳动者在本单位工作的年限，每满一年支付一个月工资的"
        "标准向劳动者支付。”",
        "unsupported",
        ART_82_FIRST,
        [],
        ["第四十七条"],
    ),
    (
        "stock-phrases-the-article-does-not-say",
        f"{LABOUR}第八十二条规定：“国家依法保护公民的合法权益。”",
        "unsupported",
        None,
        [],
        [],
    ),
    (
        "stock-phrases-with-the-articles-own-words",
        "《中华人民共和国民法典》第五百七十七条规定，对方应当承担违约责任。",
        "unknown",
        None,
        [],
        [],
    ),
    (
        "stock-phrases-the-article-says",
        "《中华人民共和国民法典》第一百八十八条规定：“法律另有规定的，依照其规定。”",
        "unknown",
        None,
        [],
        [],
    ),
    (
        "running-text-is-not-a-quote",
        f"劳动者依照{LABOUR}第三十八条解除劳动合同的，用人单位应当支付经济补偿。",
        "unknown",
        None,
        [],
        [],
    ),
]


@pytest.mark.parametrize(
    ("answer", "expected", "evidence", "differences", "found_in"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_support_verdict_and_evidence(
    statute_repository: StatuteRepository,
    answer: str,
    expected: str,
    evidence: str | None,
    differences: list[tuple[str, str, str]],
    found_in: list[str],
) -> None:
    """The verdict, its evidence passage, what differs and where the content clearly is."""
    [verdict] = check(answer, statute_repository, AS_OF).verdicts
    support = verdict.support
    assert verdict.status == "verified"
    assert support.verdict == expected
    if evidence is not None:
        assert support.evidence == evidence
    assert [(d.kind, d.stated, d.article) for d in support.differences] == differences
    assert [place.article_label for place in support.found_in] == found_in
    json_support = verdict_to_json(verdict)["support"]
    assert json_support["verdict"] == expected
    if expected == "unknown":
        assert json_support == {"verdict": "unknown"}


def test_running_text_keeps_its_claim(statute_repository: StatuteRepository) -> None:
    """The answer's own sentence is no quote, but stays the claim for the checks and the judge."""
    answer = f"劳动者依照{LABOUR}第三十八条解除劳动合同的，用人单位应当支付经济补偿。"
    [verdict] = check(answer, statute_repository, AS_OF).verdicts
    assert verdict.citation.quote is None
    assert verdict.citation.claim is not None and verdict.citation.claim.text == answer
    assert verdict.quote_check.verdict == "none"


def test_items_are_read_into_their_lead() -> None:
    """有下列情形之一的 in the lead is replaced by each item; a lead without it gets the item."""
    article = (
        "用人单位有下列情形之一的，劳动者可以解除劳动合同：\n（一）未按照劳动合同约定提供劳动保护"
        "或者劳动条件的；\n（二）未及时足额支付劳动报酬的；\n其他情形。\n董事不得有下列行为：\n"
        "（一）挪用公司资金；"
    )
    assert item_passages(article) == (
        "用人单位未按照劳动合同约定提供劳动保护或者劳动条件的，劳动者可以解除劳动合同。",
        "用人单位未及时足额支付劳动报酬的，劳动者可以解除劳动合同。",
        "董事不得挪用公司资金。",
    )


def test_stock_phrases_leave_no_content() -> None:
    """A sentence of stock phrases keeps (almost) no bigram; real content keeps its words."""
    assert len(content_bigrams(normalize_for_compare("应当依法承担相应的法律责任"))) < 3
    assert {"试用", "用期"} <= content_bigrams(normalize_for_compare("只能约定一次试用期"))


FIRST, SECOND = ((1, None), "第一条"), ((2, None), "第二条")


@pytest.mark.parametrize(
    ("shares", "label", "expected"),
    [
        ({FIRST: 0.5, SECOND: 0.7}, "第一条", (0.5, 0.7)),
        ({SECOND: 0.3, FIRST: 0.9}, "第一条", (0.9, 0.3)),
        ({FIRST: 0.123456}, "第一条", (0.1235, 0.0)),
        ({SECOND: 0.7}, "第一条", (0.0, 0.7)),
        ({((1, None), "第1条"): 0.5, SECOND: 0.3}, "第一条", (0.5, 0.3)),
        ({}, "", (0.0, 0.0)),
    ],
    ids=["cited-below", "cited-best", "cited-alone", "cited-none", "other-label", "no-shares"],
)
def test_cited_share_and_best_other(
    shares: dict[tuple[tuple[int, str | None], str], float],
    label: str,
    expected: tuple[float, float],
) -> None:
    """The cited article's share (rounded; the float 0.0 when it holds none, never the int 0
    that JSON would write as `0`) and the best other share, whether the cited key is under the
    label asked or not."""
    found = _cited_and_top_other(shares, (1, None), label)
    assert found == expected
    assert [type(value) for value in found] == [type(value) for value in expected]


def test_coverage_ignores_common_bigrams(statute_repository: StatuteRepository) -> None:
    """Support asks coverage of all the content's bigrams: the common ones change nothing."""
    law = statute_repository.resolve("劳动合同法")
    assert law is not None
    version = statute_repository.version_in_force(law.id, AS_OF)
    assert version is not None
    index = version_index(statute_repository, version.id)
    grams = content_bigrams(normalize_for_compare(ART_82_FIRST + "劳动者依法享有休息休假的权利"))
    distinctive = [gram for gram in grams if not index.is_common(gram)]
    assert len(distinctive) < len(grams), "the content must hold common bigrams"
    assert index.coverage(grams) == index.coverage(distinctive)
