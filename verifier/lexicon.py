"""The extractor's lexicon of a statute repository, built once and kept beside its snapshot.

Apart from `verifier.check` so that `lexgate extract` loads the lexicon without importing
the checks (classification, quotes, numbers, support and their libraries).
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from extractor.lexicon import Lexicon
from legaldb.repository import StatuteRepository
from legaldb.snapshot import read_marshalled, write_marshalled

LEXICON_FORMAT = 1  # raise when Lexicon.to_plain changes
_LEXICONS: WeakKeyDictionary[StatuteRepository, Lexicon] = WeakKeyDictionary()


def lexicon_of(repo: StatuteRepository) -> Lexicon:
    """The extractor's lexicon built from the repository's names (built once per repository,
    and kept beside the statute snapshot, repo.derived_dir, for the next process)."""
    lexicon = _LEXICONS.get(repo)
    if lexicon is None:
        lexicon = _LEXICONS[repo] = _kept_lexicon(repo)
    return lexicon


def _kept_lexicon(repo: StatuteRepository) -> Lexicon:
    path = None if repo.derived_dir is None else repo.derived_dir / "lexicon.marshal"
    if path is not None:
        kept = read_marshalled(path)
        if isinstance(kept, tuple) and kept[0] == LEXICON_FORMAT:
            return Lexicon.from_plain(kept[1])
    lexicon = Lexicon.from_mapping(repo.lexicon())
    if path is not None:
        write_marshalled(path, (LEXICON_FORMAT, lexicon.to_plain()))
    return lexicon
