"""The corpus reader: a lawrefbook-format statute collection -> laws, versions and articles.

Pure (no database): `legaldb.importer` writes what `read_corpus` returns. Stages, one module
each: sources (files from a directory or archive) -> headers (title, history) -> articles
(条/款/项) -> dating (label, promulgation, effective date) -> chain (laws, effective_to) ->
aliases. The rules are written down in docs/data.md.
"""

from legaldb.corpus.reader import BUNDLED_ARCHIVE, read_corpus

__all__ = ["BUNDLED_ARCHIVE", "read_corpus"]
