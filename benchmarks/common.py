"""What several benchmarks share: where the evaluation data is, and a statute repository."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from legaldb import StatuteRepository, import_corpus, make_engine, read_repealed, upgrade
from legaldb.corpus import BUNDLED_ARCHIVE, read_corpus

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("LEXGATE_SHARED_DIR", ROOT.parent / "shared"))
ANSWERS = SHARED / "eval" / "flzx_dev_answers.jsonl"


def repository(url: str | None, prefix: str = "lexgate-bench-") -> StatuteRepository:
    """The repository of url, or of a fresh SQLite file holding the bundled corpus (not timed)."""
    if url is None:
        url = f"sqlite:///{Path(tempfile.mkdtemp(prefix=prefix)) / 'corpus.sqlite3'}"
        upgrade(url)
        engine = make_engine(url)
        import_corpus(engine, read_corpus(BUNDLED_ARCHIVE), repealed=read_repealed())
    else:
        engine = make_engine(url)
    return StatuteRepository.load(engine)
