"""Leaf helpers shared by every package: Chinese numerals and text normalisation.

It imports nothing of LexGate, so `extractor` and `legaldb` can both use it without
knowing of each other.
"""

from textnorm.names import normalize_name, strip_category, strip_prc_prefix, to_halfwidth
from textnorm.numerals import (
    NumeralError,
    article_label,
    cn_to_int,
    int_to_cn,
    parse_number,
)

__all__ = [
    "NumeralError",
    "article_label",
    "cn_to_int",
    "int_to_cn",
    "normalize_name",
    "parse_number",
    "strip_category",
    "strip_prc_prefix",
    "to_halfwidth",
]
