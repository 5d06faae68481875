"""The statute repository of one server process: loaded once, lazily, retried until it works.

Loading needs the database; if it is down when the server starts, the server still starts,
/readyz answers 503 and each request retries the load until the database is back.
"""

from __future__ import annotations

import gc
import threading
from pathlib import Path

from sqlalchemy.engine import Engine

from legaldb import StatuteRepository, tune_collector
from web.errors import DatabaseUnavailable


class Statutes:
    """Holds the process's `StatuteRepository` (thread-safe, loaded at most once)."""

    def __init__(self, engine: Engine, cache_dir: Path | None = None):
        self._engine = engine
        self._cache_dir = cache_dir
        self._repository: StatuteRepository | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        """True once a non-empty repository is in memory."""
        return self._repository is not None

    def get(self) -> StatuteRepository:
        """The repository; loads it on first use. Raises DBAPIError when the database is down."""
        repository = self._repository
        if repository is not None:
            return repository
        with self._lock:
            if self._repository is None:
                loaded = StatuteRepository.load(self._engine, self._cache_dir)
                if not loaded.stats()["laws"]:
                    raise DatabaseUnavailable(
                        "the database holds no statutes: run `lexgate db init`",
                        code="no_statutes",
                    )
                self._repository = loaded
                # Keep the index's ~170,000 long-lived objects out of the cyclic GC (a full
                # collection scans them all, about 70 ms on the bundled corpus, mid-request)
                # and collect seldom (legaldb.collector); what requests left is collected first.
                gc.collect()
                tune_collector()
            return self._repository
