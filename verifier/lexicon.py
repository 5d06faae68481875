"""The extractor's lexicon of a statute repository, built once and kept beside its snapshot.

Apart from `verifier.check` so that `lexgate extract` loads the lexicon without importing
the checks (classification, quotes, numbers, support and their libraries).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from extractor.lexicon import Lexicon
from legaldb.snapshot import derived_dir, read_marshalled, sqlite_stamp, write_marshalled

if TYPE_CHECKING:  # not imported by `lexgate extract` reading a kept lexicon
    from legaldb.repository import StatuteRepository

LEXICON_FORMAT = 1  # raise when Lexicon.to_plain changes
LEXICON_FILE = "lexicon.marshal"  # in the repository's derived directory
_LEXICONS: WeakKeyDictionary[StatuteRepository, Lexicon] = WeakKeyDictionary()


def lexicon_of(repo: StatuteRepository) -> Lexicon:
    """The extractor's lexicon built from the repository's names (built once per repository,
    and kept beside the statute snapshot, repo.derived_dir, for the next process)."""
    lexicon = _LEXICONS.get(repo)
    if lexicon is None:
        lexicon = _LEXICONS[repo] = _kept_lexicon(repo)
    return lexicon


def kept_sqlite_lexicon(url: str, cache_dir: Path) -> Lexicon | None:
    """The lexicon kept for what the SQLite file at `url` holds now (its content stamp's
    derived directory in cache_dir), read without loading the statute snapshot (`lexgate
    extract` needs no more); None when there is none, or it is empty, and `lexicon_of` of
    the repository builds it."""
    stamp = sqlite_stamp(url)
    if stamp is None:
        return None
    lexicon = _read_kept(derived_dir(cache_dir, stamp) / LEXICON_FILE)
    return lexicon if lexicon else None


def _read_kept(path: Path) -> Lexicon | None:
    kept = read_marshalled(path)
    if isinstance(kept, tuple) and kept[0] == LEXICON_FORMAT:
        return Lexicon.from_plain(kept[1])
    return None


def _kept_lexicon(repo: StatuteRepository) -> Lexicon:
    path = None if repo.derived_dir is None else repo.derived_dir / LEXICON_FILE
    if path is not None:
        kept = _read_kept(path)
        if kept is not None:
            return kept
    lexicon = Lexicon.from_mapping(repo.lexicon())
    if path is not None:
        write_marshalled(path, (LEXICON_FORMAT, lexicon.to_plain()))
    return lexicon
