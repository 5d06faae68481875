"""Name normalisation: the lookup key of a name, and the category some answers write before it."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from textnorm import normalize_name, strip_category
from textnorm.names import CATEGORIES
from textnorm.width import to_halfwidth

STRIPPED = [
    ("category-zhong-de", "民法商法类中的个人独资企业法", "个人独资企业法"),
    (
        "ministry-zhong-de",
        "公安部类中的道路交通安全违法行为处理程序规定",
        "道路交通安全违法行为处理程序规定",
    ),
    ("category-lei", "社会法类残疾人保障法", "残疾人保障法"),
    ("long-category", "诉讼与非诉讼程序法类中的民事诉讼法", "民事诉讼法"),
]
KEPT = [
    ("plain-name", "中华人民共和国残疾人保障法"),
    ("lei-inside-a-name", "中华人民共和国人类遗传资源管理条例"),
    ("lei-xing-inside-a-name", "森林和野生动物类型自然保护区管理办法"),
    ("unknown-category-lei", "商事类司法解释"),
    ("dash-is-not-this-rule", "社会法-劳动法"),
    ("nothing-left", "社会法类中的法"),
]


@pytest.mark.parametrize(
    ("written", "name"), [s[1:] for s in STRIPPED], ids=[s[0] for s in STRIPPED]
)
def test_category_is_stripped(written: str, name: str) -> None:
    """A category written before the name (X类中的, a known X类) is dropped."""
    assert strip_category(written) == name


@pytest.mark.parametrize("written", [k[1] for k in KEPT], ids=[k[0] for k in KEPT])
def test_name_without_category_is_kept(written: str) -> None:
    """Names holding 类 themselves, and other prefixes, are left as written."""
    assert strip_category(written) == written


@given(
    st.sampled_from(CATEGORIES),
    st.sampled_from(["类中的", "类"]),
    st.text("劳动合同社会保险残疾人保障企业", min_size=2, max_size=12),
)
def test_known_category_always_stripped(category: str, joint: str, name: str) -> None:
    """A known category joined by 类 or 类中的 comes off whatever name follows."""
    assert strip_category(f"{category}{joint}{name}法") == f"{name}法"


def _normalized_in_full(name: str) -> str:
    """Every step of normalize_name, with no shortcut for names that need none."""
    name = unicodedata.normalize("NFC", name)
    name = to_halfwidth(name).translate(str.maketrans(dict.fromkeys("《》〈〉<>«»", "")))
    name = re.sub(r"[\s\u3000\u200b\ufeff]+", "", name)
    return name.translate(str.maketrans({"(": "（", ")": "）"}))


NAME_CHARACTERS = st.text(
    alphabet=st.sampled_from(
        "中华人民共和国公司法条例（）()《》〈〉<>«» \u3000\u200b\ufeff\t\nＡａ１，ＡＢe\u0301é"
    ),
    max_size=20,
)


@pytest.mark.parametrize(
    "name",
    [
        "中华人民共和国公司法",
        "《公司法》",
        "公司法(2018)",
        "公 司\u3000法",
        "民法典\u200b",
        "ＡＢ法",
        "cafe\u0301法",
    ],
)
def test_names_needing_nothing_and_names_needing_work_give_the_full_key(name: str) -> None:
    """A name none of the steps would change is its own key; the others are worked in full."""
    assert normalize_name(name) == _normalized_in_full(name)


@given(NAME_CHARACTERS)
def test_the_key_is_always_the_full_normalisation(name: str) -> None:
    """The shortcut for clean names never gives another key than every step would."""
    assert normalize_name(name) == _normalized_in_full(name)
