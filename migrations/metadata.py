"""The one metadata of every package's tables, for Alembic and for the schema test.

Each package owns its tables (`legaldb.orm`, `audit.tables`, `web.tables`), all on
`legaldb.orm.Base`; importing them here registers them in that one metadata.
"""

from __future__ import annotations

import audit.tables  # noqa: F401  (registers its tables)
import web.tables  # noqa: F401  (registers its table)
from legaldb.orm import Base

metadata = Base.metadata

__all__ = ["metadata"]
