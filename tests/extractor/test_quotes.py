"""Quotes (the article text an answer gives) and claims (the sentence a citation backs)."""

from __future__ import annotations

import pytest

from extractor import Lexicon, extract

QUOTES = [
    (
        "colon-quoted",
        "《劳动法》第五十条规定：“工资应当以货币形式按月支付。”因此公司违法。",
        "工资应当以货币形式按月支付。",
    ),
    (
        "quoted-nested",
        "《商业银行法》第五十四条规定：“他说“兑现”一词。”",
        "他说“兑现”一词。",
    ),
    (
        "de-gui-ding-colon",
        "依照《社会保险法》第六十七条的规定：社会保险基金预算依照法律执行。",
        "社会保险基金预算依照法律执行",
    ),
    (
        "comma-until-comment",
        "根据《劳动合同法》第八十二条规定，用人单位应当支付二倍的工资。因此，公司需要补偿。",
        "用人单位应当支付二倍的工资",
    ),
    (
        "comma-until-yin-ci",
        "根据《民法典》第一千零六十三条规定,婚前财产属于个人财产,因此你的房子属于你。",
        "婚前财产属于个人财产",
    ),
    (
        "colon-unquoted",
        "《婚姻法》第十七条：夫妻双方婚前的财产归各自所有。",
        "夫妻双方婚前的财产归各自所有",
    ),
    (
        "straight-after-number",
        "《劳动合同法》第四十七条 经济补偿按劳动者在本单位工作的年限支付。",
        "经济补偿按劳动者在本单位工作的年限支付",
    ),
    (
        "bracket-heading-dropped",
        "《合同法》第二百零六条【借款的返还】,借款人应当按照约定的期限返还借款。",
        "借款人应当按照约定的期限返还借款",
    ),
    (
        "crime-heading-dropped",
        "《刑法》第一百三十三条 过失致人死亡罪：过失致人死亡的，处三年以上七年以下有期徒刑。",
        "过失致人死亡的，处三年以上七年以下有期徒刑",
    ),
    (
        "comma-one-sentence",
        "根据《合同法》第六十九条规定，当事人违反合同约定的，应当承担违约责任。具体数额由双方协商。",
        "当事人违反合同约定的，应当承担违约责任",
    ),
    (
        "comma-list-runs-on",
        "根据《合同法》第五十四条规定，下列合同可以撤销：(一)重大误解的;(二)显失公平的。一方以欺诈手段订立的，也可以撤销。",
        "下列合同可以撤销：(一)重大误解的;(二)显失公平的。一方以欺诈手段订立的，也可以撤销",
    ),
    (
        "comma-gui-ding-le",
        "《中华人民共和国劳动法》第７５条，规定了雇主应当缴纳社会保险费。",
        "雇主应当缴纳社会保险费",
    ),
    (
        "colon-runs-past-dan-shi",
        "依照《合伙企业法》第二十一条的规定：合伙人不得请求分割财产；但是，本法另有规定的除外。",
        "合伙人不得请求分割财产；但是，本法另有规定的除外",
    ),
    (
        "colon-runs-past-ben-fa",
        "依照《专利法》第五十七条的规定：其实施限于本法第五十三条第（二）项规定的情形。",
        "其实施限于本法第五十三条第（二）项规定的情形",
    ),
    (
        "ye-ming-que-gui-ding",
        "同时，《教育法》第四十二条也明确规定，未成年学生不得从事实习。",
        "未成年学生不得从事实习",
    ),
    (
        "straight-after-number-dui",
        "《未成年人保护法》第六十六条对违法犯罪的未成年人，应当依法从轻处罚。",
        "对违法犯罪的未成年人，应当依法从轻处罚",
    ),
    (
        "list-after-a-colon-across-blank-lines",
        "根据《社会保险法》第十六条，领取基本养老金需要满足以下条件：\n\n1. 参加基本养老保险;\n"
        "2. 达到法定退休年龄。\n\n因此小明可以领取。",
        "领取基本养老金需要满足以下条件：\n\n1. 参加基本养老保险;\n2. 达到法定退休年龄",
    ),
    (
        "items-after-gui-ding-colon-each-after-a-blank-line",
        "《劳动合同法》第三十八条规定：\n\n（一）未按照劳动合同约定提供劳动保护的；\n\n"
        "（二）未及时足额支付劳动报酬的；\n\n请注意保留证据。",
        "（一）未按照劳动合同约定提供劳动保护的；\n\n（二）未及时足额支付劳动报酬的",
    ),
    (
        "a-blank-line-without-a-list-still-ends-it",
        "《劳动法》第五十条规定：工资应当以货币形式按月支付：\n\n公司拖欠工资的，可以投诉。",
        "工资应当以货币形式按月支付：",
    ),
    ("none-an-zhao-instruction", "按照《社会保险法》第四十六条的规定，办理转移手续。", None),
    (
        "none-answer-voice",
        "根据《民法典》第一千零六十三条第三款规定,如果你媳妇知情,她无权分割。",
        None,
    ),
    ("none-at-end", "法律依据：《劳动法》第三十八条", None),
    ("none-before-period", "法律依据：《劳动法》第三十八条。", None),
    ("none-de-gui-ding-verb", "按照《社会保险法》第四十六条的规定办理转移手续。", None),
    ("none-guan-yu", "以消费者权益保护法第二十五条关于数字化产品的规定为由", None),
]


@pytest.mark.parametrize(("text", "quote"), [q[1:] for q in QUOTES], ids=[q[0] for q in QUOTES])
def test_quote(text: str, quote: str | None, lexicon: Lexicon) -> None:
    """The first citation's quote is the article content the answer gives, or None."""
    citation = extract(text, lexicon)[0]
    assert (citation.quote.text if citation.quote else None) == quote
    if citation.quote:
        assert text[citation.quote.start : citation.quote.end] == quote


def test_quote_ends_before_the_next_citation(lexicon: Lexicon) -> None:
    """An unquoted recitation stops with the sentence before the next citation."""
    text = "《合同法》第五十三条合同显失公平，人民法院应予支持。 第五十四条下列合同可以撤销。"
    first, second = extract(text, lexicon)
    assert first.quote is not None and first.quote.text == "合同显失公平，人民法院应予支持"
    assert second.quote is not None and second.quote.text == "下列合同可以撤销"


def test_gai_fa_ends_the_recitation(lexicon: Lexicon) -> None:
    """该法 is the answer's word, not the statute's: the recitation before it ends there."""
    text = "根据劳动合同法第三十八条规定：劳动者应提前三十日通知。而根据该法第三十五条规定：应当支付工资。"
    first, _ = extract(text, lexicon)
    assert first.quote is not None and first.quote.text == "劳动者应提前三十日通知"


def test_list_members_share_the_quote(lexicon: Lexicon) -> None:
    """第十五条和第十六条的规定，… gives both articles the same quote."""
    text = "根据《刑事诉讼法》第十五条和第十六条的规定，检察院应当作出不起诉的决定。"
    first, second = extract(text, lexicon)
    assert first.quote == second.quote
    assert first.quote is not None and first.quote.text == "检察院应当作出不起诉的决定"


def test_ben_fa_inside_a_recital_has_no_quote(lexicon: Lexicon) -> None:
    """本法第三十八条规定解除… inside a recited article carries no quote of its own."""
    text = "《劳动合同法》第四十七条，劳动者依照本法第三十八条规定解除劳动合同的。"
    _, inner = extract(text, lexicon)
    assert inner.surface == "本法第三十八条" and inner.quote is None


CLAIMS = [
    (
        "sentence",
        "公司违法。根据《劳动合同法》第八十二条，应当支付二倍工资。另外说明。",
        "根据《劳动合同法》第八十二条，应当支付二倍工资。",
    ),
    (
        "quoted-content-inside",
        "法律依据：《劳动法》第五十条规定：“工资应当按月支付。不得克扣。”因此违法。",
        "法律依据：《劳动法》第五十条规定：“工资应当按月支付。不得克扣。”因此违法。",
    ),
    ("line", "1. 《劳动法》第五十条\n2. 其他", "1. 《劳动法》第五十条"),
]


@pytest.mark.parametrize(("text", "claim"), [c[1:] for c in CLAIMS], ids=[c[0] for c in CLAIMS])
def test_claim(text: str, claim: str, lexicon: Lexicon) -> None:
    """The claim is the sentence holding the citation (a quoted article stays inside it)."""
    citation = extract(text, lexicon)[0]
    assert citation.claim is not None and citation.claim.text == claim
