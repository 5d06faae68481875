"""Each fact template, rendered from verdicts, against the sentences the issue gives as models."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from gate import Policy, Turn, assess
from gate.facts import TEMPLATES_DIR, cn_date, excerpt, no_citations_fact, passage_with
from gate.models import FactKind
from tests.gate.builders import checked, citation, invented, outside, repealed, verdict
from verifier.models import (
    ArticleRef,
    Difference,
    Facts,
    FoundIn,
    NumberConflict,
    QuoteCheck,
    Support,
    Verdict,
)

LABOUR = "中华人民共和国劳动合同法"
ART_82 = (
    "用人单位自用工之日起超过一个月不满一年未与劳动者订立书面劳动合同的，应当向劳动者每月支付"
    "二倍的工资。\n用人单位违反本法规定不与劳动者订立无固定期限劳动合同的，自应当订立无固定期限"
    "劳动合同之日起向劳动者每月支付二倍的工资。"
)

ART_82_SAYS = (
    "《中华人民共和国劳动合同法》第八十二条原文为：“用人单位自用工之日起超过一个月不满一年未与"
    "劳动者订立书面劳动合同的，应当向劳动者每月支付二倍的工资。 用人单位违反本法规定不与劳动者订立无"
    "固定期限劳动合同的，自应当订立无固定期限劳动合同之日起向劳动者……”"
)

COMPANY = "中华人民共和国公司法"
ELSEWHERE_46 = FoundIn(LABOUR, "第四十六条", "2012年修正", 0.9, "same_law")

FACT_CASES: list[tuple[str, Verdict, str]] = [
    (
        "article_count",
        invented(1289),
        "《中华人民共和国民法典》第一条至第一千二百六十条，共 1260 条。"
        "前述答案引用的第一千二百八十九条不存在。",
    ),
    (
        "repealed_with_successor_text",
        repealed(),
        "《中华人民共和国合同法》已于2021年1月1日废止；其第一百零七条对应现行《中华人民共和国民法典》"
        "第五百七十七条：“当事人一方不履行合同义务或者履行合同义务不符合约定的，应当承担继续履行、"
        "采取补救措施或者赔偿损失等违约责任。”",
    ),
    (
        "not_yet_effective",
        verdict(
            citation(COMPANY, 10),
            "not_yet_effective",
            facts=Facts(law=COMPANY, version_label="2023年修订", effective_from="2024-07-01"),
            version_label="2023年修订",
        ),
        "《中华人民共和国公司法》（2023年修订）自2024年7月1日起施行，在此之前不得作为现行依据。",
    ),
    (
        "number_conflict",
        verdict(
            citation(LABOUR, 82, claim="应当支付三倍工资"),
            article_text=ART_82,
            conflicts=(NumberConflict("multiple", 3.0, (2.0,), "三倍", ("二倍",)),),
        ),
        "《中华人民共和国劳动合同法》第八十二条原文为：“用人单位自用工之日起超过一个月不满一年未与"
        "劳动者订立书面劳动合同的，应当向劳动者每月支付二倍的工资。”答案称“三倍”，与原文不符。",
    ),
    (
        "law_not_in_data",
        outside("中华人民共和国户籍法", covered=True),
        "数据收录全部现行法律，其中没有《中华人民共和国户籍法》。",
    ),
    (
        "superseded_with_corresponding_article",
        verdict(
            citation(COMPANY, 16, version_hint="2018年修正"),
            "superseded",
            facts=Facts(
                law=COMPANY,
                corresponding=ArticleRef(
                    COMPANY,
                    15,
                    None,
                    "第十五条",
                    version_label="2023年修订",
                    text="公司向其他企业投资或者为他人提供担保……",
                ),
            ),
            version_label="2018年修正",
        ),
        "前述答案引用的《中华人民共和国公司法》（2018年修正）已不再施行；其第十六条对应现行"
        "《中华人民共和国公司法》（2023年修订）第十五条：“公司向其他企业投资或者为他人提供担保……”。",
    ),
    (
        "paragraph_count",
        verdict(
            citation(LABOUR, 82, paragraph=3),
            "paragraph_not_found",
            facts=Facts(law=LABOUR, paragraph_count=2),
        ),
        "《中华人民共和国劳动合同法》第八十二条共2款，前述答案引用的第三款不存在。",
    ),
    (
        "item_count",
        verdict(
            citation(LABOUR, 39, item=7),
            "item_not_found",
            facts=Facts(law=LABOUR, item_count=6),
        ),
        "《中华人民共和国劳动合同法》第三十九条共6项，前述答案引用的第七项不存在。",
    ),
    (
        "item_count_none",
        verdict(
            citation(LABOUR, 82, paragraph=1, item=3),
            "item_not_found",
            facts=Facts(law=LABOUR, item_count=0),
        ),
        "《中华人民共和国劳动合同法》第八十二条第一款不分项，前述答案引用的第三项不存在。",
    ),
    (
        "article_deleted",
        verdict(
            citation(LABOUR, 99),
            "article_deleted",
            facts=Facts(law=LABOUR, version_label="2012年修正"),
        ),
        "《中华人民共和国劳动合同法》（2012年修正）已删去第九十九条，不得作为现行依据。",
    ),
    (
        "unsupported_found_elsewhere_clearly",
        verdict(
            citation(LABOUR, 82, quote="应当向劳动者支付经济补偿"),
            article_text=ART_82,
            quote=QuoteCheck(verdict="mismatch", score=0.3, found_in=(ELSEWHERE_46,)),
            support=Support("unsupported", score=0.3, coverage=0.1, found_in=(ELSEWHERE_46,)),
        ),
        f"{ART_82_SAYS}前述答案所述该条内容与原文不符，所述内容见于《中华人民共和国劳动合同法》"
        "（2012年修正）第四十六条。",
    ),
    (
        "unsupported_location_unclear_is_not_named",
        verdict(
            citation(LABOUR, 82, quote="应当向劳动者支付经济补偿"),
            article_text=ART_82,
            quote=QuoteCheck(verdict="mismatch", score=0.3, found_in=(ELSEWHERE_46,)),
            support=Support("unsupported", score=0.3, coverage=0.1),
        ),
        f"{ART_82_SAYS}前述答案所述该条内容与原文不符。",
    ),
    (
        "unsupported_with_a_number_is_one_fact",
        verdict(
            citation(LABOUR, 82, quote="应当向劳动者每月支付三倍的工资作为经济补偿"),
            article_text=ART_82,
            quote=QuoteCheck(verdict="mismatch", score=0.3),
            conflicts=(NumberConflict("multiple", 3.0, (2.0,), "三倍", ("二倍",)),),
            support=Support("unsupported", score=0.3, coverage=0.1),
        ),
        f"{ART_82_SAYS}前述答案所述该条内容与原文不符；答案称“三倍”，原文为“用人单位自用工之日起"
        "超过一个月不满一年未与劳动者订立书面劳动合同的，应当向劳动者每月支付二倍的工资。”",
    ),
]


@pytest.mark.parametrize(
    ("failed", "expected"),
    [case[1:] for case in FACT_CASES],
    ids=[case[0] for case in FACT_CASES],
)
def test_fact_sentence(failed: Verdict, expected: str) -> None:
    result = assess(checked(failed), "答案。", policy=Policy(excerpt_chars=100))
    assert [fact.text for fact in result.facts] == [expected]


def test_every_fact_kind_has_a_template() -> None:
    kinds = set(typing.get_args(FactKind))
    templates = {path.stem for path in Path(TEMPLATES_DIR).glob("*.j2")}
    assert kinds <= templates
    assert templates - kinds == {
        "rerun_system",
        "rerun_instruction",
        "no_question",
        "judge_system",
        "judge_user",
    }  # judge_*: the model judge's prompt (gate.judge)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("2021-01-01", "2021年1月1日"), ("2024-07-01", "2024年7月1日"), (None, "")],
    ids=["new_year", "july", "none"],
)
def test_cn_date(value: str | None, expected: str) -> None:
    assert cn_date(value) == expected


def test_excerpt_cuts_with_an_ellipsis() -> None:
    assert excerpt("甲乙丙丁戊，己庚", 5) == "甲乙丙丁戊……"
    assert excerpt("甲 乙\n丙", 10) == "甲 乙 丙"


def test_passage_names_the_sentence_with_the_number() -> None:
    text = "第一句没有数字。第二句规定支付二倍的工资。第三句。"
    assert passage_with(text, ["二倍"], Policy()) == "……第二句规定支付二倍的工资。"
    assert passage_with(text, ["五倍"], Policy()) == text


def test_rerun_request_carries_question_answer_instruction_and_facts() -> None:
    answer = "根据《中华人民共和国民法典》第一千二百八十九条，应当赔偿。"
    result = assess(
        checked(invented(1289, start=2)),
        answer,
        turn=Turn(question="邻居漏水怎么办？", session_id="s-1"),
    )
    request = result.rerun_request
    assert request is not None
    assert (request.session_id, request.attempt) == ("s-1", 2)
    roles = [m.role for m in request.messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert request.messages[1].content == "邻居漏水怎么办？"
    assert request.messages[2].content == answer
    instruction = request.messages[3].content
    assert "第2次作答" in instruction
    assert "共 1260 条" in instruction
    assert "截至2024年1月1日" in instruction


def test_a_quoted_sentence_takes_no_second_full_stop() -> None:
    """A quotation that ends its own sentence is not followed by another 。 (…责任。” not 。”。)."""
    fact = no_citations_fact(["您可以要求对方赔偿损失。", "对方应当承担违约责任。"], Policy())
    assert fact.text.endswith("2.“对方应当承担违约责任。”")
    assert "”。" not in fact.text


def test_partly_is_a_warning_with_its_differences_when_the_policy_reruns() -> None:
    """Partly content gives no fact by default; with partly=rerun one fact names what differs."""
    cited = verdict(
        citation(LABOUR, 82, quote="用人单位应当向劳动者每月支付三倍的工资"),
        article_text=ART_82,
        quote=QuoteCheck(verdict="partial", score=0.7),
        conflicts=(NumberConflict("multiple", 3.0, (2.0,), "三倍", ("二倍",)),),
        support=Support(
            "partly",
            evidence=ART_82.split("\n")[0],
            score=0.7,
            coverage=0.9,
            differences=(
                Difference("number", "三倍", "二倍"),
                Difference(
                    "condition",
                    "",
                    "用人单位自用工之日起超过一个月不满一年未与劳动者订立书面劳动合同的",
                ),
            ),
        ),
    )
    warned = assess(checked(cited), "答案。")
    assert warned.decision == "pass"
    assert [(f.signal, f.correctable) for f in warned.failures] == [
        ("content_partly", False),
        ("number_conflict", True),
    ]
    assert len(warned.facts) == 1  # one fact per provision
    rerun = assess(checked(cited), "答案。", policy=Policy(partly="rerun"))
    assert rerun.decision == "rerun"
    assert [fact.kind for fact in rerun.facts] == ["content_partly"]
    assert rerun.facts[0].text == (
        "《中华人民共和国劳动合同法》第八十二条原文为：“用人单位自用工之日起超过一个月不满一年未与"
        "劳动者订立书面劳动合同的，应当向劳动者每月支付二倍的工资。”前述答案所述该条内容与原文部分不符；"
        "答案称“三倍”，原文为“用人单位自用工之日起超过一个月不满一年未与劳动者订立书面劳动合同的，"
        "应当向劳动者每月支付二倍的工资。”；遗漏了条件“用人单位自用工之日起超过一个月不满一年未与劳动者"
        "订立书面劳动合同的”。"
    )
