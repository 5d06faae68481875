"""The web's own table: API keys (on the one metadata of `legaldb.orm.Base`; migration 0002)."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from legaldb.orm import Base


class ApiKey(Base):
    """A web API key: its public id, the SHA-256 of its secret, its role (written by `web`)."""

    __tablename__ = "api_key"

    id: Mapped[int] = mapped_column(primary_key=True)
    key_id: Mapped[str] = mapped_column(sa.String(32), unique=True)  # public part, lgk_<key_id>_…
    secret_sha256: Mapped[str] = mapped_column(sa.String(64))  # hex digest of the secret part
    role: Mapped[str] = mapped_column(sa.String(20))  # checker | auditor | admin
    name: Mapped[str | None] = mapped_column(sa.String(200))
    created_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True))


__all__ = ["ApiKey"]
