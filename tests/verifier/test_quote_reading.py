"""Issue 16's quote location, reading and normalisation shortcuts give what the plain steps
give: the parts files read in place, the index keys and version texts kept as columns, the
item markers searched only where they can be, the trailing frame only with its words."""

from __future__ import annotations

import marshal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.verifier.statute_texts import REAL_ARTICLES
from textnorm.marshalled import read_marshalled, read_marshalled_parts, write_marshalled_parts
from verifier import content, textnorm_quote
from verifier.quotes import QuoteIndex

_BYTES = st.binary(max_size=40)


@given(st.tuples(st.integers(), st.text(max_size=10)), st.lists(_BYTES, max_size=6))
def test_a_parts_file_reads_back_its_value_and_parts(
    tmp_path_factory: pytest.TempPathFactory, value: tuple[int, str], parts: list[bytes]
) -> None:
    """What write_marshalled_parts wrote reads back: the value (also through read_marshalled,
    which ignores the parts) and each part, each at a multiple of 8 bytes in the file."""
    path = tmp_path_factory.mktemp("parts") / "f.marshal"
    assert write_marshalled_parts(path, value, parts)
    found = read_marshalled_parts(path)
    assert found is not None
    assert found[0] == value and read_marshalled(path) == value
    assert [bytes(part) for part in found[1]] == parts
    assert len({id(part.obj) for part in found[1]}) <= 1  # views of the one string read
    assert path.stat().st_size % 8 == 0


@pytest.mark.parametrize(
    "data",
    [b"", b"\0" * 7, b"\0" * 8, marshal.dumps((7, "x")), marshal.dumps((1,)) + b"\xff" * 8],
)
def test_a_file_that_is_no_parts_file_reads_as_none(tmp_path: Path, data: bytes) -> None:
    """Missing, empty, short, old (a bare marshalled value) or corrupt files read as None."""
    assert read_marshalled_parts(tmp_path / "missing") is None
    path = tmp_path / "f.marshal"
    path.write_bytes(data)
    assert read_marshalled_parts(path) is None


_KEY = st.tuples(
    st.tuples(st.integers(-(2**63), 2**63 - 1), st.one_of(st.none(), st.text(max_size=3))),
    st.text(max_size=8),
)


@given(st.lists(_KEY, max_size=20))
def test_the_keys_kept_as_columns_are_the_keys(
    keys: list[tuple[tuple[int, str | None], str]],
) -> None:
    """An index's keys packed (or kept as the list, should a label hold a line break) and
    marshalled come back equal, in order."""
    packed = marshal.loads(marshal.dumps(content._packed_keys(keys)))
    assert content._unpacked_keys(packed) == keys
    assert isinstance(packed, list) == any("\n" in label for _, label in keys)


def test_a_kept_index_read_in_place_finds_what_the_built_one_finds(tmp_path: Path) -> None:
    """An index written as a parts file and read back (its arrays views of the bytes read)
    locates, ranks and covers as the index built from the articles."""
    articles = [
        (((number, None), f"第{number}条"), text)
        for number, text in enumerate(REAL_ARTICLES.values())
    ]
    built = QuoteIndex(articles)
    (keys, *plain), parts = built.to_parts()
    path = tmp_path / "quotes.marshal"
    assert write_marshalled_parts(path, (content._packed_keys(keys), tuple(plain)), parts)
    found = read_marshalled_parts(path)
    assert found is not None
    value, views = found
    assert isinstance(value, tuple)
    packed, plain_read = value
    kept: QuoteIndex[Any] = QuoteIndex.from_parts(
        (content._unpacked_keys(packed), *plain_read), views
    )
    assert isinstance(kept._postings.codes, memoryview)
    for _, text in articles:
        quote = text[len(text) // 4 : len(text) // 4 + 40]
        assert kept.locate(quote) == built.locate(quote)
        assert kept.locate_scores(quote, limit=5) == built.locate_scores(quote, limit=5)
        grams = {quote[i : i + 2] for i in range(len(quote) - 1)}
        assert kept.coverage(grams) == built.coverage(grams)
    assert kept.to_plain() == built.to_plain()


_MARKED = st.lists(
    st.sampled_from(
        ["1", "12", "一", "十一", "、", ".", " ", "\n", "(", ")", "①", "法", "5", "条"]
    ),
    max_size=16,
).map("".join)


@given(_MARKED)
def test_the_item_markers_go_as_the_whole_pattern_removes_them(text: str) -> None:
    """Over texts of the characters the markers are made of, `_without_item_markers` gives
    what the whole pattern's sub gives (with brackets and circled numerals or without, line
    breaks anywhere)."""
    assert textnorm_quote._without_item_markers(text) == textnorm_quote._ITEM_MARKERS.sub("", text)


def test_the_real_sentences_lose_the_same_markers() -> None:
    """Every sentence of the real articles, and each article whole, folded: the same text."""
    texts = [*REAL_ARTICLES.values()]
    texts += [
        s for article in REAL_ARTICLES.values() for s in textnorm_quote.split_sentences(article)
    ]
    for text in map(textnorm_quote._fold, texts):
        assert textnorm_quote._without_item_markers(text) == textnorm_quote._ITEM_MARKERS.sub(
            "", text
        )


@given(
    st.lists(
        st.sampled_from(
            [
                "以上",
                "上述",
                "这就是",
                "这是",
                "本条",
                "该",
                "条",
                "的",
                "内容",
                "规定",
                "。",
                "\n",
                "第十条",
            ]
        ),
        max_size=10,
    ).map("".join)
)
def test_no_trailing_frame_is_found_without_its_words(text: str) -> None:
    """The words `quote_variants` looks for first are in every trailing frame found."""
    if textnorm_quote._TRAILING_FRAME.search(text) is not None:
        assert any(word in text for word in textnorm_quote._TRAILING_WORDS)
