"""The citation extractor: finds statute citations in an answer, with no database.

A regular-expression pre-scan finds candidate spans, the Lark grammar in citation.lark parses
them, and context resolution fills in 本法/该法, continuations, quotes and claims.
"""

from typing import TYPE_CHECKING

from textnorm.lazy import lazy_exports

if TYPE_CHECKING:
    from extractor.lexicon import Lexicon
    from extractor.models import Citation, Quote, Span
    from extractor.pipeline import extract

__all__ = ["Citation", "Lexicon", "Quote", "Span", "extract"]

__getattr__ = lazy_exports(
    __name__,
    {
        "extractor.lexicon": ("Lexicon",),
        "extractor.models": ("Citation", "Quote", "Span"),
        "extractor.pipeline": ("extract",),
    },
)
