"""The corpus readers: statute collections -> laws, versions and articles.

Pure (no database): `legaldb.importer` writes what `read_statutes` returns. Stages, one module
each: sources (files from a directory or archive) -> headers (title, history) -> articles
(条/款/项) -> dating (label, promulgation, effective date) -> chain (laws, effective_to) ->
aliases; flk reads the national database's capture; statutes merges every source into one
history per statute with its repeals. The rules are written down in docs/data.md.
"""

from legaldb.corpus.reader import BUNDLED_ARCHIVE, BUNDLED_HISTORY, read_corpus
from legaldb.corpus.statutes import read_statutes

__all__ = ["BUNDLED_ARCHIVE", "BUNDLED_HISTORY", "read_corpus", "read_statutes"]
