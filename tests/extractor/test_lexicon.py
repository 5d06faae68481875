"""The name lexicon: normalised keys, derived aliases, resolution, suffix lookup."""

from __future__ import annotations

import pytest

from extractor import Lexicon, extract
from extractor.errors import LexiconError

RESOLVE = [
    ("canonical", "中华人民共和国劳动合同法", "中华人民共和国劳动合同法"),
    ("short-derived", "劳动合同法", "中华人民共和国劳动合同法"),
    ("title-marks-and-spaces", "《劳动 合同法》", "中华人民共和国劳动合同法"),
    ("abbreviation", "社保法", "中华人民共和国社会保险法"),
    ("prefix-added", "中华人民共和国社保法", "中华人民共和国社会保险法"),
    (
        "interpretation-short",
        "婚姻法若干问题的解释（三）",
        "最高人民法院关于适用《中华人民共和国婚姻法》若干问题的解释（三）",
    ),
    (
        "interpretation-ascii-brackets",
        "中华人民共和国婚姻法若干问题的解释(三)",
        "最高人民法院关于适用《中华人民共和国婚姻法》若干问题的解释（三）",
    ),
    (
        "interpretation-jie-shi",
        "婚姻法司法解释（三）",
        "最高人民法院关于适用《中华人民共和国婚姻法》若干问题的解释（三）",
    ),
    ("unique-ending", "治安处罚法", None),
    ("unique-ending-found", "安管理处罚法", "中华人民共和国治安管理处罚法"),
    ("too-short-to-guess", "处罚法", None),
    ("unknown", "中华人民共和国户籍法", None),
]


@pytest.mark.parametrize(
    ("name", "canonical"), [r[1:] for r in RESOLVE], ids=[r[0] for r in RESOLVE]
)
def test_resolve(name: str, canonical: str | None, lexicon: Lexicon) -> None:
    """Written names resolve to canonical names; unknown ones to None."""
    assert lexicon.resolve(name) == canonical


def test_ambiguous_ending_stays_unknown() -> None:
    """A shortened name that ends two laws' names resolves to neither."""
    lexicon = Lexicon.from_names(
        ["中华人民共和国道路交通安全法", "中华人民共和国海上交通安全法", "中华人民共和国消防法"]
    )
    assert lexicon.resolve("交通安全法") is None
    assert lexicon.resolve("道路交通安全法") == "中华人民共和国道路交通安全法"


def test_explicit_entry_beats_a_derived_alias() -> None:
    """An alias given explicitly wins over the same key derived from another name."""
    lexicon = Lexicon.from_mapping(
        {"中华人民共和国合同法": "中华人民共和国合同法", "合同法": "合同法（旧）"}
    )
    assert lexicon.resolve("合同法") == "合同法（旧）"


def test_longest_suffix(lexicon: Lexicon) -> None:
    """The longest known name ending the text is found (劳动合同法, not 合同法)."""
    assert lexicon.longest_suffix("用人单位违反劳动合同法") == len("劳动合同法")
    assert lexicon.longest_suffix("用人单位违反规定") == 0
    assert lexicon.longest_suffix("") == 0


def _longest_known_ending(lexicon: Lexicon, text: str) -> int:
    """`longest_suffix` by its definition: every key tried."""
    if not text or text[-1] not in lexicon.last_chars:
        return 0
    text = text.replace("(", "（").replace(")", "）")
    return max((len(key) for key in lexicon.names if text.endswith(key)), default=0)


@pytest.mark.parametrize("before", ["", "违反", "依照中华人民共和国", "(旧)", "法"])
def test_longest_suffix_tries_every_key(before: str, lexicon: Lexicon) -> None:
    """For every known name after any text, the suffix found is the longest key ending it."""
    for key in lexicon.names:
        for text in (before + key, before + key[1:], before + key[:-1]):
            assert lexicon.longest_suffix(text) == _longest_known_ending(lexicon, text), text


def test_longest_suffix_one_character_name() -> None:
    """A one-character name is found too, after the longer ones."""
    lexicon = Lexicon.from_names(["法", "宪法", "中华人民共和国宪法"])
    assert lexicon.longest_suffix("根据宪法") == len("宪法")
    assert lexicon.longest_suffix("根据国法") == 1
    assert lexicon.longest_suffix("法") == 1


def test_contains_and_len(lexicon: Lexicon) -> None:
    """Membership uses the normalised key; the size counts derived aliases too."""
    assert "《劳动合同法》" in lexicon
    assert "劳动" not in lexicon
    assert len(lexicon) > 16


BAD = [
    ("not-a-collection", 42),
    ("list-of-non-strings", ["劳动法", 3]),
    ("empty-name", {"": "劳动法"}),
    ("empty-canonical", {"劳动法": " "}),
    ("non-string-value", {"劳动法": 1}),
]


@pytest.mark.parametrize("data", [b[1] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_lexicon_data(data: object) -> None:
    """Malformed lexicon data raises LexiconError."""
    with pytest.raises(LexiconError):
        Lexicon.from_json(data)


def test_from_json_list_and_mapping() -> None:
    """A JSON list of names and a JSON mapping both build a lexicon."""
    assert Lexicon.from_json(["工伤保险条例"]).resolve("工伤保险条例") == "工伤保险条例"
    assert Lexicon.from_json({"工伤条例": "工伤保险条例"}).resolve("工伤条例") == "工伤保险条例"


def test_forgetting_the_memos_changes_no_citation(lexicon: Lexicon) -> None:
    """Lexicon.forget empties the memos of names met; the citations found after it are the
    same as with the memos filled."""
    answer = "根据《劳动合同法》第八十二条和劳动法第四十四条，用人单位应当支付工资。"
    first = extract(answer, lexicon)
    assert lexicon.written_laws
    lexicon.forget()
    assert not lexicon.written_laws
    assert extract(answer, lexicon) == first
