"""Errors of the citation extractor."""

from __future__ import annotations


class ExtractorError(Exception):
    """Base class of the extractor's errors."""


class LexiconError(ExtractorError, ValueError):
    """A lexicon file or mapping cannot be read (wrong shape, empty name)."""


class SpanParseError(ExtractorError):
    """A candidate span does not parse (the pre-scan and the grammar disagree)."""
