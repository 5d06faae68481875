"""The number normaliser and number conflicts, on real article texts from the corpus."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import statute_texts_with_numbers, written_amounts
from tests.verifier.statute_texts import (
    CIVIL_CODE_17,
    CIVIL_CODE_188,
    CIVIL_CODE_1087,
    COMPANY_LAW_250,
    CONSUMER_55,
    CRIMINAL_LAW_17,
    CRIMINAL_LAW_264,
    LABOR_CONTRACT_19,
    LABOR_CONTRACT_82,
    REAL_ARTICLES,
)
from verifier.numbers import find_quantities, number_conflicts

YEAR, MONTH = 365.0, 365 / 12

QUANTITIES = [
    ("五百万元", [("amount", 5_000_000)]),
    ("100万元", [("amount", 1_000_000)]),
    ("5000元", [("amount", 5000)]),
    ("5,000元", [("amount", 5000)]),
    ("1.5万元", [("amount", 15_000)]),
    ("三亿元", [("amount", 300_000_000)]),
    ("一千元以上", [("amount", 1000)]),
    ("处五万元以上五十万元以下罚款", [("amount", 50_000), ("amount", 500_000)]),
    ("二倍", [("multiple", 2)]),
    ("三倍", [("multiple", 3)]),
    ("两倍", [("multiple", 2)]),
    ("2倍", [("multiple", 2)]),
    ("双倍工资", [("multiple", 2)]),
    ("十二个月", [("duration", 12 * MONTH)]),
    ("30日内", [("duration", 30)]),
    ("十五日", [("duration", 15)]),
    ("三年", [("duration", 3 * YEAR)]),
    ("六个月以上", [("duration", 6 * MONTH)]),
    ("二十四小时", [("duration", 1)]),
    ("半年", [("duration", YEAR / 2)]),
    ("十五个工作日", [("duration", 15)]),
    ("三至五年有期徒刑", [("duration", 3 * YEAR), ("duration", 5 * YEAR)]),
    ("十四周岁", [("age", 14)]),
    ("16周岁", [("age", 16)]),
    ("八岁", [("age", 8)]),
    ("百分之五十", [("ratio", 0.5)]),
    ("50%", [("ratio", 0.5)]),
    ("三分之二", [("ratio", 2 / 3)]),
    ("千分之五", [("ratio", 0.005)]),
    ("三人以上", [("count", 3)]),
    ("五名", [("count", 5)]),
]


@pytest.mark.parametrize(("text", "expected"), QUANTITIES, ids=[c[0] for c in QUANTITIES])
def test_reads_quantities(text: str, expected: list[tuple[str, float]]) -> None:
    found = [(q.kind, q.value) for q in find_quantities(text)]
    assert [kind for kind, _ in found] == [kind for kind, _ in expected]
    assert [value for _, value in found] == pytest.approx([value for _, value in expected])


NOT_QUANTITIES = [
    ("2023年8月1日起施行", "date"),
    ("二〇二三年", "year in digit-by-digit Chinese"),
    ("自2024年7月1日起施行", "date with 自"),
    ("第八十二条", "article label"),
    ("前款第一项、第二项", "item references"),
    ("第三人", "ordinal: a third party"),
    ("（一）用人单位", "list marker"),
    ("一次性支付", "一次性 is an adverb"),
    ("人民法院", "人民 is no count of people"),
    ("一人有限责任公司", "a kind of company"),
    ("我是一名下岗职工", "一名: a, not a count"),
    ("第一百二十条之一", "article label with suffix"),
]


@pytest.mark.parametrize(("text", "why"), NOT_QUANTITIES, ids=[c[1] for c in NOT_QUANTITIES])
def test_ignores_what_is_no_quantity(text: str, why: str) -> None:
    assert find_quantities(text) == [], why


def test_quantities_keep_surface_bound_and_position() -> None:
    text = "对直接责任人员处三万元以上三十万元以下的罚款"
    low, high = find_quantities(text)
    assert (low.surface, low.bound, text[low.start : low.end]) == (
        "三万元以上",
        "以上",
        "三万元以上",
    )
    assert (high.surface, high.bound) == ("三十万元以下", "以下")
    (age,) = find_quantities("不满十六周岁")
    assert age.bound == "不满"


CONFLICTS = [
    # (id, claim, article, expected conflicts as (kind, value in the claim))
    (
        "labor82-triple-wage",
        "用人单位应当向劳动者每月支付三倍工资",
        LABOR_CONTRACT_82,
        [("multiple", 3)],
    ),
    ("labor82-double-wage", "用人单位应当向劳动者每月支付二倍的工资", LABOR_CONTRACT_82, []),
    ("labor82-shuangbei", "应当支付双倍工资", LABOR_CONTRACT_82, []),
    (
        "criminal17-age-13",
        "已满十三周岁的人犯故意杀人罪，应当负刑事责任",
        CRIMINAL_LAW_17,
        [("age", 13)],
    ),
    ("criminal17-age-16", "已满十六周岁的人犯罪，应当负刑事责任", CRIMINAL_LAW_17, []),
    ("civil17-adult-16", "十六周岁以上的自然人为成年人", CIVIL_CODE_17, [("age", 16)]),
    ("civil17-adult-18", "十八周岁以上的自然人为成年人", CIVIL_CODE_17, []),
    ("civil188-two-years", "诉讼时效期间为两年", CIVIL_CODE_188, [("duration", 2 * YEAR)]),
    ("civil188-3-years", "诉讼时效期间为3年", CIVIL_CODE_188, []),
    ("consumer55-5x", "可以要求所受损失五倍以下的惩罚性赔偿", CONSUMER_55, [("multiple", 5)]),
    (
        "consumer55-1000-yuan",
        "增加赔偿的金额不足一千元的，为一千元",
        CONSUMER_55,
        [("amount", 1000)],
    ),
    ("consumer55-500-yuan", "增加赔偿的金额不足500元的，为500元", CONSUMER_55, []),
    ("company250-5m", "对公司处以五百万元以下的罚款", COMPANY_LAW_250, [("amount", 5_000_000)]),
    ("company250-1m-in-range", "对公司处以一百万元罚款", COMPANY_LAW_250, []),
    ("company250-20pct", "处以注册资本金额百分之二十的罚款", COMPANY_LAW_250, [("ratio", 0.2)]),
    ("company250-10pct-in-range", "处以虚报注册资本金额百分之十的罚款", COMPANY_LAW_250, []),
    (
        "criminal264-7-years",
        "处三年以上七年以下有期徒刑",
        CRIMINAL_LAW_264,
        [("duration", 7 * YEAR)],
    ),
    ("criminal264-3-to-10", "数额巨大的，处三至十年有期徒刑", CRIMINAL_LAW_264, []),
    ("labor19-8-months", "试用期不得超过八个月", LABOR_CONTRACT_19, [("duration", 8 * MONTH)]),
    ("labor19-30-days", "期限三个月以上不满一年的，试用期不得超过30日", LABOR_CONTRACT_19, []),
    ("civil1087-no-duration", "离婚时应当在三十日内分割共同财产", CIVIL_CODE_1087, []),
    ("labor82-date-and-label", "2023年8月1日，第八十二条规定支付二倍工资", LABOR_CONTRACT_82, []),
]


@pytest.mark.parametrize(
    ("claim", "article", "expected"), [c[1:] for c in CONFLICTS], ids=[c[0] for c in CONFLICTS]
)
def test_number_conflicts(claim: str, article: str, expected: list[tuple[str, float]]) -> None:
    conflicts = number_conflicts(claim, article)
    assert [(c.kind, c.claim_value) for c in conflicts] == [
        (kind, pytest.approx(value)) for kind, value in expected
    ]


def test_conflict_reports_both_sides() -> None:
    (conflict,) = number_conflicts("每月支付三倍工资", LABOR_CONTRACT_82)
    assert conflict.claim_surface == "三倍"
    assert conflict.article_values == (2.0,)
    assert conflict.article_surfaces == ("二倍",)


@given(written_amounts(), st.sampled_from(["处{}元罚款", "{}元", "罚款{}元以下", "不超过{}元"]))
def test_amounts_read_back(amount: tuple[int, str], frame: str) -> None:
    """Any int written in Chinese or Arabic numerals, with 万/亿 units, reads back to its value."""
    value, numeral = amount
    found = find_quantities(frame.format(numeral))
    assert [(q.kind, q.value) for q in found] == [("amount", value)]


@given(statute_texts_with_numbers(), st.data())
def test_text_copied_from_the_article_never_conflicts(article: str, data: st.DataObject) -> None:
    """The article itself, or any of its sentences, never conflicts with the article."""
    assert number_conflicts(article, article) == []
    sentences = [s for s in re.split(r"[。；]", article) if s]
    assert number_conflicts(data.draw(st.sampled_from(sentences)), article) == []


@pytest.mark.parametrize("name", list(REAL_ARTICLES), ids=list(REAL_ARTICLES))
def test_real_article_never_conflicts_with_itself(name: str) -> None:
    article = REAL_ARTICLES[name]
    for sentence in re.split(r"[。；\n]", article):
        assert number_conflicts(sentence, article) == []


def test_the_quantity_pattern_is_the_same_text_in_every_process() -> None:
    """The pattern's text (the key under which its compiled program is kept for the next
    process) does not depend on the string hash seed."""
    script = "import verifier.numbers as n; print(n._QUANTITY.pattern, end='')"
    texts = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(1, 5)
    }
    assert len(texts) == 1
