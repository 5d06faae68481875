"""The statute database: laws, versions, articles, repeals and successors, point in time."""

from typing import TYPE_CHECKING

from textnorm.lazy import lazy_exports

if TYPE_CHECKING:
    from legaldb.collector import tune_collector
    from legaldb.engine import make_engine
    from legaldb.importer import import_corpus, import_repealed
    from legaldb.migrate import downgrade, upgrade
    from legaldb.repealed import read_repealed
    from legaldb.repository import StatuteRepository

__all__ = [
    "StatuteRepository",
    "downgrade",
    "import_corpus",
    "import_repealed",
    "make_engine",
    "read_repealed",
    "tune_collector",
    "upgrade",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "legaldb.collector": ("tune_collector",),
        "legaldb.engine": ("make_engine",),
        "legaldb.importer": ("import_corpus", "import_repealed"),
        "legaldb.migrate": ("downgrade", "upgrade"),
        "legaldb.repealed": ("read_repealed",),
        "legaldb.repository": ("StatuteRepository",),
    },
)
