"""Normalisation of law names for lookup: width, brackets, spaces, the PRC prefix."""

from __future__ import annotations

import unicodedata

from textnorm.kept import kept_pattern
from textnorm.width import to_halfwidth

PRC_PREFIX = "中华人民共和国"
_SPACES = kept_pattern(r"[\s\u3000\u200b\ufeff]+")
_TITLE_MARKS = kept_pattern(r"[《》〈〉<>«»]")
# Any character one of normalize_name's steps would change (a superset): a name without any,
# in NFC already, is its own key (most names are: 16 µs of translating saved per call).
_TO_NORMALIZE = kept_pattern(r"[\s\u3000\u200b\ufeff\uff01-\uff5e《》〈〉<>«»()]")
# The categories collections file laws under (the corpus's folders, LawBench's labels), which
# some answers write before a name: 民法商法类中的个人独资企业法, 社会法类残疾人保障法.
CATEGORIES = (
    *("宪法相关法", "宪法", "民法典", "民法商法", "行政法规", "行政法", "经济法", "社会法"),
    *("刑法", "诉讼与非诉讼程序法", "司法解释", "部门规章", "地方性法规", "监察法规"),
)
# "X类中的" names any category (公安部类中的…); a bare "X类" only a known one, since names
# hold 类 too (人类遗传资源管理条例, 森林和野生动物类型自然保护区管理办法).
_CATEGORY_PREFIX = kept_pattern(
    rf"^(?:[\u4e00-\u9fff、]{{2,12}}?类中的|(?:{'|'.join(CATEGORIES)})类)(?=[\u4e00-\u9fff])"
)


def normalize_name(name: str) -> str:
    """The lookup key of a law name: NFKC-safe width, no title marks, no spaces, （） brackets."""
    if _TO_NORMALIZE.search(name) is None and unicodedata.is_normalized("NFC", name):
        return name
    name = unicodedata.normalize("NFC", name)
    # regexes and replace, not str.translate: a dict table costs a lookup per character
    name = _TITLE_MARKS.sub("", to_halfwidth(name))
    name = _SPACES.sub("", name)
    return name.replace("(", "（").replace(")", "）")


def strip_category(name: str) -> str:
    """民法商法类中的个人独资企业法 -> 个人独资企业法, 社会法类残疾人保障法 -> 残疾人保障法;
    a name with no category written before it is returned unchanged."""
    match = _CATEGORY_PREFIX.match(name)
    if match is None or len(name) - match.end() < 2:
        return name
    return name[match.end() :]


def strip_prc_prefix(name: str) -> str:
    """中华人民共和国公司法 -> 公司法 (other names unchanged)."""
    return name.removeprefix(PRC_PREFIX)
