"""PII masking: generated personal data is masked, numbers that are not personal data are not."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from audit.masking import find_pii, is_resident_id, luhn_valid, mask_pii
from audit.models import MaskResult, PiiKind
from tests.strategies import (
    bank_card_digits,
    bank_card_numbers,
    chinese_text,
    chinese_words,
    emails,
    landline_numbers,
    mobile_numbers,
    non_luhn_card_digits,
    old_resident_ids,
    resident_id_check_char,
    resident_ids,
    resident_ids_with_wrong_check,
)

GENERATED = {
    PiiKind.MOBILE: mobile_numbers(),
    PiiKind.LANDLINE: landline_numbers(),
    PiiKind.ID_CARD: resident_ids() | old_resident_ids(),
    PiiKind.EMAIL: emails,
    PiiKind.BANK_CARD: bank_card_numbers(),
}
ASCII_DIGIT = re.compile(r"[0-9]")


@pytest.mark.parametrize("kind", list(GENERATED), ids=str)
@given(data=st.data(), before=chinese_text, after=chinese_text)
def test_generated_pii_in_chinese_text_is_masked(
    kind: PiiKind, data: st.DataObject, before: str, after: str
) -> None:
    """Valid personal data of each kind amid Chinese text becomes exactly its placeholder."""
    raw = data.draw(GENERATED[kind], label="raw")
    result = mask_pii(before + raw + after)
    assert result.text == before + kind.placeholder + after
    assert result.counts == {kind: 1}
    assert raw not in result.text


@given(
    items=st.lists(
        st.sampled_from(list(GENERATED)).flatmap(
            lambda kind: st.tuples(st.just(kind), GENERATED[kind])
        ),
        min_size=1,
        max_size=8,
    ),
    gaps=st.lists(chinese_words, min_size=9, max_size=9),
)
def test_mixed_pii_all_masked_nothing_else(
    items: list[tuple[PiiKind, str]], gaps: list[str]
) -> None:
    """Several kinds in one text, kept apart by words: each one masked, every digit gone."""
    text = gaps[0] + "".join(raw + gap for (_, raw), gap in zip(items, gaps[1:], strict=False))
    expected = gaps[0] + "".join(
        kind.placeholder + gap for (kind, _), gap in zip(items, gaps[1:], strict=False)
    )
    result = mask_pii(text)
    assert result.text == expected
    assert result.total == len(items)
    assert not ASCII_DIGIT.search(result.text)


@given(text=st.text(max_size=200))
def test_masking_is_idempotent_on_any_text(text: str) -> None:
    """Masking a masked text changes nothing more, whatever the input."""
    once = mask_pii(text).text
    assert mask_pii(once).text == once


@given(text=st.text(max_size=200))
def test_spans_are_ordered_and_disjoint(text: str) -> None:
    """find_pii's spans lie inside the text, in order, without overlap."""
    position = 0
    for match in find_pii(text):
        assert position <= match.start < match.end <= len(text)
        position = match.end


@given(text=st.text(alphabet=st.characters(exclude_characters="0123456789@０１２３４５６７８９＠")))
def test_text_without_digits_or_at_is_unchanged(text: str) -> None:
    """No digit and no '@': nothing can be personal data, the text comes back as it was."""
    assert mask_pii(text) == MaskResult(text, {})


@given(raw=resident_ids_with_wrong_check(), before=chinese_text, after=chinese_text)
def test_id_with_wrong_check_character_is_not_masked(raw: str, before: str, after: str) -> None:
    """An 18-character id whose check character is wrong is no 身份证号 (nor, if not Luhn, card)."""
    assume(raw[-1] == "X" or not luhn_valid(raw))
    assert mask_pii(before + raw + after).text == before + raw + after


@given(raw=non_luhn_card_digits(), before=chinese_text, after=chinese_text)
def test_number_failing_luhn_is_not_masked(raw: str, before: str, after: str) -> None:
    """A 13-19 digit number that fails the Luhn check is left alone."""
    assert mask_pii(before + raw + after).text == before + raw + after


@given(digits=bank_card_digits(), glue=st.sampled_from(["a", "Z", "k"]))
def test_number_glued_to_letters_is_not_masked(digits: str, glue: str) -> None:
    """A valid card number inside a longer ASCII token (a hash, a code) is not a card number."""
    text = f"编号{glue}{digits}{glue}号"
    assert mask_pii(text).text == text


@pytest.mark.parametrize(
    ("first_17", "expected"),
    [("11010519491231002", "X"), ("34052419800101001", "X")],
    ids=["GB11643-sample", "anhui"],
)
def test_check_character_of_published_examples(first_17: str, expected: str) -> None:
    assert resident_id_check_char(first_17) == expected
    assert is_resident_id(first_17 + expected)
    assert is_resident_id(first_17 + expected.lower())


@pytest.mark.parametrize(
    "first_17",
    ["11010520491331002", "11010519490230002", "99010519491231002", "11010518001231002"],
    ids=["month-13", "feb-30", "province-99", "born-1800"],
)
def test_implausible_ids_with_right_check_character_are_rejected(first_17: str) -> None:
    """Only the date or the province can reject these: their check character is right."""
    assert not is_resident_id(first_17 + resident_id_check_char(first_17))


@pytest.mark.parametrize(
    ("candidate", "plausible"),
    [("110105491231002", True), ("110105491331002", False), ("990105491231002", False)],
    ids=["1949-12-31", "month-13", "province-99"],
)
def test_old_fifteen_digit_ids(candidate: str, plausible: bool) -> None:
    assert is_resident_id(candidate) is plausible


@pytest.mark.parametrize(
    ("digits", "valid"),
    [
        ("4111111111111111", True),
        ("4111111111111112", False),
        ("378282246310005", True),
        ("79927398713", True),
        ("79927398710", False),
    ],
    ids=["visa-test", "visa-off-by-one", "amex-test", "wikipedia", "wikipedia-wrong"],
)
def test_luhn(digits: str, valid: bool) -> None:
    assert luhn_valid(digits) is valid


NOT_PERSONAL_DATA = [
    ("article", "根据《中华人民共和国民法典》第1062条，夫妻共同财产归夫妻共同所有。"),
    ("article-cn", "《民法典》第一千零八十七条第二款"),
    ("amount", "赔偿金额为5000000元，另付违约金13812345678元。"),
    ("amount-wan", "标的额13912345678万元"),
    ("amount-currency-sign", "共计￥4111111111111111，及$4111111111111111"),
    ("amount-decimal", "损失13812345678.50元，利率0.13812345678"),
    ("amount-comma", "注册资本5,000,000,000,000元"),
    ("percent", "增长13812345678%"),
    ("date", "本法自2021年1月1日起施行，2023-08-01修订，20230801公布。"),
    ("date-time", "立案时间202308011230，执行于2023/08/01 12:30:00。"),
    ("year-ranges", "合同期限2018-2020年，2020-2022没签合同"),
    ("year-list-dashed", "1991-1992-1993-1994连续四年"),  # Luhn-valid as 16 digits
    ("year-list-spaced", "1992 1994 1996 1998年的数据"),  # Luhn-valid as 16 digits
    ("judicial-interpretation", "法释〔2020〕22号；国务院令第588号；主席令第七十二号"),
    ("case-number", "（2023）京0105民初12345号判决"),
    ("standard", "GB 50016-2014《建筑设计防火规范》，GB/T 7714-2015"),
    ("credit-code", "统一社会信用代码91110108MA01ABCD2X"),
    ("hash", "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("hotline", "服务热线400-810-8888，报警电话110，12345市民热线"),
    ("timestamp", "时间戳1690848000"),
    ("short-numbers", "第1款第2项；共3人；1260条"),
    ("at-sign", "用户@张三 在微博上发言；邮箱：无"),
]


@pytest.mark.parametrize(
    "text", [t for _, t in NOT_PERSONAL_DATA], ids=[i for i, _ in NOT_PERSONAL_DATA]
)
def test_legal_numbers_amounts_dates_untouched(text: str) -> None:
    assert mask_pii(text) == MaskResult(text, {})


MASKED = [
    ("mobile-plain", "请拨打13812345678联系", "请拨打[手机号]联系"),
    ("mobile-fullwidth", "电话：１３８１２３４５６７８。", "电话：[手机号]。"),
    ("mobile-plus86", "Tel: +86 138-1234-5678.", "Tel: [手机号]."),
    ("mobile-86-paren", "（+86）13812345678", "[手机号]"),
    ("landline-beijing", "座机010-62345678转801", "座机[固定电话]转801"),
    ("landline-paren", "(0755)86001234", "[固定电话]"),
    ("landline-fullwidth-paren", "（０２１）６２３４５６７８", "[固定电话]"),
    ("landline-intl", "+86 10 62345678", "[固定电话]"),
    ("id-x", "身份证号11010519491231002X。", "身份证号[身份证号]。"),
    ("id-lower-x", "身份证11010519491231002x", "身份证[身份证号]"),
    ("id-grouped", "身份证 110105 19491231 002X", "身份证 [身份证号]"),
    ("id-15", "旧身份证号110105491231002", "旧身份证号[身份证号]"),
    ("id-before-card", "110105194912310150", "[身份证号]"),  # also Luhn-valid
    ("card-spaced", "卡号4111 1111 1111 1111", "卡号[银行卡号]"),
    ("card-dashed-19", "卡号6222-0212-3456-7890-128", "卡号[银行卡号]"),
    ("card-amex", "3782 822463 10005", "[银行卡号]"),
    ("mobile-86-not-card", "8613812345678", "[手机号]"),
    ("email", "邮箱zhang.san+law@mail.example.com.cn。", "邮箱[邮箱]。"),
    ("email-before-phone", "13812345678@163.com", "[邮箱]"),
    ("email-fullwidth-at", "ｚｓ＠ｑｑ．ｃｏｍ", "[邮箱]"),
    ("email-glued-digits", "a@x.com13812345678", "[邮箱][手机号]"),
    ("id-then-phone", "11010519491231002X、13812345678", "[身份证号]、[手机号]"),
]


@pytest.mark.parametrize(
    ("text", "expected"), [(t, e) for _, t, e in MASKED], ids=[i for i, _, _ in MASKED]
)
def test_written_forms_are_masked(text: str, expected: str) -> None:
    assert mask_pii(text).text == expected


_SENTENCE = "合同约定13812345678及zs@qq.com，"
LARGE_INPUTS = [
    ("digits", "1" * 1_000_000, 0),
    ("at-run", "a@" * 500_000, 0),
    ("dotted-domain", "x@" + "a." * 500_000, 0),
    ("spaced-digits", "1 " * 500_000, 0),
    ("dash-groups", "1234-" * 200_000, 0),
    ("plus86", "+86" * 333_333, 0),
    ("parens", "(010)" * 200_000, 0),
    ("dots-then-at", "." * 999_999 + "@", 0),
    ("sentences", _SENTENCE * (1_000_000 // len(_SENTENCE)), 2 * (1_000_000 // len(_SENTENCE))),
]


@pytest.mark.parametrize(
    ("text", "expected_total"),
    [(t, n) for _, t, n in LARGE_INPUTS],
    ids=[i for i, _, _ in LARGE_INPUTS],
)
def test_one_megabyte_inputs_take_linear_time(text: str, expected_total: int) -> None:
    """Pathological 1 MB inputs finish in seconds (quadratic work would take hours)."""
    started = time.perf_counter()
    result = mask_pii(text)
    assert time.perf_counter() - started < 30
    assert result.total == expected_total
