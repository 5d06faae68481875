"""The pseudonym mapping and the open gate rounds in the database (for several hosts on
PostgreSQL), their raw ids and answers sealed with AES-256-GCM.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "audit_pseudonym_map",
        sa.Column("pseudonym", sa.String(length=80), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("key_id", sa.String(length=16), nullable=False),
        sa.Column("sealed_id", sa.LargeBinary(), nullable=False),
        sa.Column("first_seen", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("pseudonym", name=op.f("pk_audit_pseudonym_map")),
    )
    op.create_index(op.f("ix_audit_pseudonym_map_key_id"), "audit_pseudonym_map", ["key_id"])
    op.create_table(
        "web_open_round",
        sa.Column("session", sa.String(length=80), nullable=False),
        sa.Column("subject", sa.String(length=80), nullable=True),
        sa.Column("case_id", sa.String(length=32), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("key_id", sa.String(length=16), nullable=False),
        sa.Column("sealed_record", sa.LargeBinary(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("session", name=op.f("pk_web_open_round")),
    )
    op.create_index(op.f("ix_web_open_round_key_id"), "web_open_round", ["key_id"])
    op.create_index(op.f("ix_web_open_round_updated_at"), "web_open_round", ["updated_at"])


def downgrade() -> None:
    op.drop_table("web_open_round")
    op.drop_table("audit_pseudonym_map")
