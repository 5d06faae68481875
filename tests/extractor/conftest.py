"""Fixtures of the extractor tests: a small lexicon of real names and aliases."""

from __future__ import annotations

import pytest

from extractor import Lexicon

LAW_NAMES = (
    "中华人民共和国民法典",
    "中华人民共和国劳动合同法",
    "中华人民共和国劳动法",
    "中华人民共和国社会保险法",
    "中华人民共和国刑法",
    "中华人民共和国合同法",
    "中华人民共和国婚姻法",
    "中华人民共和国民法总则",
    "中华人民共和国著作权法",
    "中华人民共和国消费者权益保护法",
    "中华人民共和国治安管理处罚法",
    "中华人民共和国公司法",
    "中华人民共和国香港特别行政区基本法",
    "工伤保险条例",
    "最高人民法院关于适用《中华人民共和国婚姻法》若干问题的解释（三）",
    "最高人民法院关于适用《中华人民共和国民法典》合同编通则若干问题的解释",
)
ALIASES = {"社保法": "中华人民共和国社会保险法", "消法": "中华人民共和国消费者权益保护法"}


@pytest.fixture(scope="session")
def lexicon() -> Lexicon:
    """Real law names, their short forms (derived) and two abbreviations."""
    return Lexicon.from_mapping({**{name: name for name in LAW_NAMES}, **ALIASES})
