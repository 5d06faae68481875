"""Statute history: the sources of each version, repeals from every source (some without a
known date), and the article-by-article differences between sources of one version.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("version") as batch:
        batch.add_column(sa.Column("sources", sa.JSON(), nullable=True))
    with op.batch_alter_table("repeal_event") as batch:
        batch.alter_column("repealed_on", existing_type=sa.Date(), nullable=True)
        batch.add_column(sa.Column("source", sa.String(length=40), nullable=True))
        batch.add_column(sa.Column("note", sa.Text(), nullable=True))
    with op.batch_alter_table("dataset_manifest") as batch:
        batch.add_column(sa.Column("differences", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("dataset_manifest") as batch:
        batch.drop_column("differences")
    op.execute("DELETE FROM repeal_event WHERE repealed_on IS NULL")
    with op.batch_alter_table("repeal_event") as batch:
        batch.drop_column("note")
        batch.drop_column("source")
        batch.alter_column("repealed_on", existing_type=sa.Date(), nullable=False)
    with op.batch_alter_table("version") as batch:
        batch.drop_column("sources")
