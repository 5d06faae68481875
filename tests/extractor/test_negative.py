"""Text that is not a statute citation yields nothing."""

from __future__ import annotations

import pytest

from extractor import Lexicon, extract

NOT_CITATIONS = [
    ("chapter-alone", "《劳动合同法》第四章规定了劳动合同的解除和终止。"),
    ("section-alone", "详见《民法典》第三编第二节的内容。"),
    ("part-alone", "《民法典》第五编婚姻家庭"),
    ("contract-clause", "根据双方签订的合同第五条约定，乙方应当支付违约金。"),
    ("agreement-clause", "按照租赁协议第三条，押金不予退还。"),
    ("titled-contract", "《劳动合同》第五条约定了试用期。"),
    ("titled-agreement", "《离婚协议书》第二条写明房屋归女方。"),
    ("percent", "按本人工资的百分之一百发给。"),
    ("fraction", "经三分之二以上成员同意。"),
    ("rib", "第三条肋骨骨折，第四根肋骨不全性骨折。"),
    ("road", "沿第二条路向北走。"),
    ("placeholder", "根据《中华人民共和国合同法》第X条规定，买卖双方可以口头约定。"),
    ("placeholder-cross", "《中华人民共和国民事诉讼法》第×条"),
    ("paragraph-alone", "依照本条第二款的规定处理。"),
    ("item-alone", "有前款第三项情形的，不得解除。"),
    ("ordinal-times", "这是我第一次被公司辞退，第二次申请仲裁。"),
    ("no-antecedent", "第十条规定了这一点。"),
    ("law-without-article", "根据《劳动合同法》的规定，用人单位应当支付经济补偿。"),
    ("generic-law-word", "根据相关法律第十条的规定"),
    ("issue-number", "2023年第5期第十二页"),
    ("empty", ""),
]


@pytest.mark.parametrize("text", [n[1] for n in NOT_CITATIONS], ids=[n[0] for n in NOT_CITATIONS])
def test_not_a_citation(text: str, lexicon: Lexicon) -> None:
    """None of these is a citation, with or without a lexicon."""
    assert extract(text, lexicon) == []
    assert extract(text) == []


def test_continuation_needs_a_recent_law(lexicon: Lexicon) -> None:
    """A bare 第…条 far from the last cited law does not continue it."""
    text = "《劳动法》第三十六条规定了工时。" + "其他说明。" * 400 + "\n第三十七条"
    (citation,) = extract(text, lexicon)
    assert citation.article == 36


def test_clause_of_a_contract_does_not_continue(lexicon: Lexicon) -> None:
    """合同第五条 after a cited law stays a clause of the contract."""
    citations = extract("《劳动合同法》第十九条规定了试用期，合同第五条约定了六个月。", lexicon)
    assert [(c.law, c.article) for c in citations] == [("中华人民共和国劳动合同法", 19)]


def test_garbage_paragraphs_after_a_citation(lexicon: Lexicon) -> None:
    """Only the first 款 joins an article; a run of 第N款 with no separator is not a list."""
    text = "《中华人民共和国道路交通安全法》第129条第2款第1款第2款第3款"
    citations = extract(text, lexicon)
    assert [(c.article, c.paragraph) for c in citations] == [(129, 2)]


BARE_NUMBERS_AFTER_A_CITATION = [
    # (id, text, the only (article, paragraph, item) expected)
    ("comma-then-count", "《劳动法》第三十六条，三条规定都要看。", [(36, None, None)]),
    ("measure-word-after-list", "《劳动法》第三十六条、三条路可走。", [(36, None, None)]),
    ("items-after-paragraph-alone", "依照本条第二款第（一）、（二）项的规定处理。", []),
    ("count-of-items", "《劳动法》第三十六条规定了一、二项内容。", [(36, None, None)]),
]


@pytest.mark.parametrize(("text", "expected"), [b[1:] for b in BARE_NUMBERS_AFTER_A_CITATION],
                         ids=[b[0] for b in BARE_NUMBERS_AFTER_A_CITATION])  # fmt: skip
def test_bare_numbers_near_a_citation(
    text: str, expected: list[tuple[int, int | None, int | None]], lexicon: Lexicon
) -> None:
    """A list member may drop its 第 only after 、 and only as N条; nothing else is read."""
    assert [(c.article, c.paragraph, c.item) for c in extract(text, lexicon)] == expected
