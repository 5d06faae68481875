"""`candidates._name_ends` without its window where nothing can end there gives what cutting
and matching the window gives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from extractor import candidates

# Gap items, notes, divisions and parts of a code, the characters next to them, and names.
_PIECES = [
    *(" ", "\t", "\u3000", "\xa0", "*", "\n", "的", "中", "【", "总则", "分则", "附则", "则"),
    *("<b>", "</b>", "<br/>", ">", "（注）", "(注)", "）", ")", "（", "第", "第二章", "第三编"),
    *("第一节", "编", "章", "节", "合同编", "-物权编", "—", "二", "十", "劳动法", "民法典"),
    *("社会保险法", "规定", "，", "：", "。", "a"),
]
_texts = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


def _name_ends_by_window(text: str, end: int) -> tuple[int, ...]:
    """_name_ends as it read every window (the reference)."""
    if end == 0:
        return (0, 0)
    return candidates._name_ends_in_window(text, end, max(end - candidates._LOOK_BACK, 0))


@given(_texts, st.data())
def test_name_ends_as_by_window(text: str, data: st.DataObject) -> None:
    """Where a name may end before any position: the same with and without the shortcut."""
    end = data.draw(st.integers(0, len(text)))
    assert candidates._name_ends(text, end) == _name_ends_by_window(text, end)
