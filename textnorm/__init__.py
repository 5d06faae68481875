"""Leaf helpers shared by every package: numerals, full-width folding, law-name normalisation
(and `textnorm.marshalled`, files of plain values written atomically; `textnorm.slotted`, frozen
dataclasses made cheaply).

It imports nothing of LexGate, so `extractor` and `legaldb` can both use it without
knowing of each other.
"""

from typing import TYPE_CHECKING

from textnorm.lazy import lazy_exports

if TYPE_CHECKING:
    from textnorm.names import normalize_name, strip_category, strip_prc_prefix
    from textnorm.numerals import (
        NumeralError,
        article_label,
        cn_to_int,
        int_to_cn,
        parse_number,
    )
    from textnorm.width import HALF_WIDTH, fold_width, to_halfwidth

__all__ = [
    "HALF_WIDTH",
    "NumeralError",
    "article_label",
    "cn_to_int",
    "fold_width",
    "int_to_cn",
    "normalize_name",
    "parse_number",
    "strip_category",
    "strip_prc_prefix",
    "to_halfwidth",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "textnorm.names": ("normalize_name", "strip_category", "strip_prc_prefix"),
        "textnorm.numerals": (
            "NumeralError",
            "article_label",
            "cn_to_int",
            "int_to_cn",
            "parse_number",
        ),
        "textnorm.width": ("HALF_WIDTH", "fold_width", "to_halfwidth"),
    },
)
