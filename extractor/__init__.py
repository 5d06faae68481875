"""The citation extractor: finds statute citations in an answer, with no database.

A regular-expression pre-scan finds candidate spans, the Lark grammar in citation.lark parses
them, and context resolution fills in 本法/该法, continuations, quotes and claims.
"""

from extractor.lexicon import Lexicon
from extractor.models import Citation, Quote, Span
from extractor.pipeline import extract

__all__ = ["Citation", "Lexicon", "Quote", "Span", "extract"]
