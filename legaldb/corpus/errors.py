"""Errors of the corpus reader. A bad file never raises out of `read_corpus`: it is skipped."""

from __future__ import annotations

from legaldb.errors import LegalDBError


class CorpusError(LegalDBError):
    """The corpus source itself cannot be read (no such directory, not a tar archive …)."""


class UnparsableFile(CorpusError):
    """One corpus file cannot be turned into a version; `reason` says why (for SkippedFile)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
