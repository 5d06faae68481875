"""The premise check: facts about the laws a question names, on the real statute data."""

from __future__ import annotations

from datetime import date

import pytest

from gate import premise
from gate.premise import named_laws
from legaldb import StatuteRepository


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("《中华人民共和国公司法》和劳动合同法有什么不同？", ["中华人民共和国公司法", "中华人民共和国劳动合同法"]),
        ("按照民法典，离婚时财产怎么分？", ["中华人民共和国民法典"]),
        ("合同法第一百零七条还有效吗？合同法呢？", ["中华人民共和国合同法"]),
        ("我被公司辞退了怎么办？", []),
    ],
    ids=["title_and_bare", "short_name", "once_each", "none"],
)  # fmt: skip
def test_named_laws(statute_repository: StatuteRepository, question: str, names: list[str]) -> None:
    assert [law.name for law in named_laws(question, statute_repository)] == names


def test_a_version_about_to_take_effect(statute_repository: StatuteRepository) -> None:
    (fact,) = premise("公司法对股东出资期限有什么规定？", repo=statute_repository,
                      as_of=date(2024, 1, 1))  # fmt: skip
    assert fact.kind == "upcoming_version"
    assert fact.text.startswith("《中华人民共和国公司法》（")
    assert "自2024年7月1日起施行" in fact.text
    assert fact.text.endswith("回答时必须区分现行规定与即将施行的新规。")


def test_the_day_the_new_version_takes_effect_needs_no_fact(
    statute_repository: StatuteRepository,
) -> None:
    assert premise("公司法对股东出资期限有什么规定？", repo=statute_repository,
                   as_of=date(2024, 7, 1)) == []  # fmt: skip


def test_only_a_version_not_yet_in_force(statute_repository: StatuteRepository) -> None:
    (fact,) = premise("民法典怎么规定离婚冷静期？", repo=statute_repository,
                      as_of=date(2020, 6, 1))  # fmt: skip
    assert fact.kind == "only_future_version"
    assert fact.text.startswith("库内《中华人民共和国民法典》仅有尚未施行的版本（")
    assert "自2021年1月1日起施行" in fact.text


def test_a_repealed_law_with_its_successor(statute_repository: StatuteRepository) -> None:
    (fact,) = premise("合同法规定的违约责任有哪些？", repo=statute_repository,
                      as_of=date(2024, 1, 1))  # fmt: skip
    assert fact.kind == "law_repealed"
    assert fact.text == (
        "《中华人民共和国合同法》已于2021年1月1日废止，现行规定见《中华人民共和国民法典》，"
        "回答时不得将其作为现行依据。"
    )
    assert premise("合同法规定的违约责任有哪些？", repo=statute_repository,
                   as_of=date(2020, 12, 31)) == []  # fmt: skip
