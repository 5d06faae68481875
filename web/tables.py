"""The web's own tables (on the one metadata of `legaldb.orm.Base`): API keys (migration 0002)
and the open rounds of POST /api/v1/gate kept in the database (migration 0006)."""

from __future__ import annotations

from datetime import datetime
from typing import cast

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from audit.tables import UtcDateTime
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


class OpenRoundRow(Base):
    """A round of POST /api/v1/gate waiting for its next answer, in the database so that any
    host continues it (PostgreSQL; a single machine on SQLite keeps its rounds in a private
    file, `web.rounds.FileRoundStore`). The round's JSON holds raw answers: it is sealed
    (AES-256-GCM, `audit.sealing`) and bound to its session. `attempts` is the round's version:
    an answer continues the round only while it still has the attempts the answer was gated on.
    """

    __tablename__ = "web_open_round"

    session: Mapped[str] = mapped_column(sa.String(80), primary_key=True)  # pseudonym
    subject: Mapped[str | None] = mapped_column(sa.String(80))  # pseudonym
    case_id: Mapped[str] = mapped_column(sa.String(32))  # the audit case it is recorded as
    attempts: Mapped[int]
    key_id: Mapped[str] = mapped_column(sa.String(16), index=True)  # the sealing key's id
    sealed_record: Mapped[bytes] = mapped_column(sa.LargeBinary)  # gate.RoundRecord JSON
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)


OPEN_ROUND_TABLE = cast(sa.Table, OpenRoundRow.__table__)

__all__ = ["OPEN_ROUND_TABLE", "ApiKey", "OpenRoundRow"]
