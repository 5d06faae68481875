"""The statute schema: laws, aliases, versions, articles, repeals, correspondences, manifest.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "dataset_manifest",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("dataset", sa.String(length=100), nullable=False),
        sa.Column("source", sa.String(length=1000), nullable=False),
        sa.Column("snapshot", sa.String(length=200), nullable=False),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("counts", sa.JSON(), nullable=False),
        sa.Column("complete_levels", sa.JSON(), nullable=False),
        sa.Column("skipped", sa.JSON(), nullable=False),
        sa.Column("undated", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dataset_manifest")),
        sa.UniqueConstraint("dataset", name=op.f("uq_dataset_manifest_dataset")),
    )
    op.create_table(
        "import_issue",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("dataset_id", sa.Integer(), nullable=False),
        sa.Column("path", sa.String(length=1000), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["dataset_id"],
            ["dataset_manifest.id"],
            name=op.f("fk_import_issue_dataset_id_dataset_manifest"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_import_issue")),
    )
    op.create_index(op.f("ix_import_issue_dataset_id"), "import_issue", ["dataset_id"])
    op.create_table(
        "law",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("dataset_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=500), nullable=False),
        sa.Column("short_name", sa.String(length=500), nullable=False),
        sa.Column("level", sa.String(length=20), nullable=False),
        sa.Column("category", sa.String(length=200), nullable=True),
        sa.Column("issuer", sa.String(length=500), nullable=True),
        sa.ForeignKeyConstraint(
            ["dataset_id"],
            ["dataset_manifest.id"],
            name=op.f("fk_law_dataset_id_dataset_manifest"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_law")),
        sa.UniqueConstraint("name", name=op.f("uq_law_name")),
    )
    op.create_index(op.f("ix_law_dataset_id"), "law", ["dataset_id"])
    op.create_index(op.f("ix_law_level"), "law", ["level"])
    op.create_table(
        "law_alias",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("law_id", sa.Integer(), nullable=False),
        sa.Column("alias", sa.String(length=500), nullable=False),
        sa.Column("key", sa.String(length=500), nullable=False),
        sa.ForeignKeyConstraint(
            ["law_id"], ["law.id"], name=op.f("fk_law_alias_law_id_law"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_law_alias")),
        sa.UniqueConstraint("law_id", "key", name=op.f("uq_law_alias_law_id_key")),
    )
    op.create_index(op.f("ix_law_alias_key"), "law_alias", ["key"])
    op.create_table(
        "repeal_event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("dataset_id", sa.Integer(), nullable=False),
        sa.Column("law_id", sa.Integer(), nullable=False),
        sa.Column("repealed_on", sa.Date(), nullable=False),
        sa.Column("repealed_by", sa.String(length=500), nullable=True),
        sa.Column("successor_law_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["dataset_id"],
            ["dataset_manifest.id"],
            name=op.f("fk_repeal_event_dataset_id_dataset_manifest"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["law_id"], ["law.id"], name=op.f("fk_repeal_event_law_id_law"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["successor_law_id"],
            ["law.id"],
            name=op.f("fk_repeal_event_successor_law_id_law"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_repeal_event")),
    )
    op.create_index(op.f("ix_repeal_event_dataset_id"), "repeal_event", ["dataset_id"])
    op.create_index(op.f("ix_repeal_event_law_id"), "repeal_event", ["law_id"])
    op.create_index(op.f("ix_repeal_event_successor_law_id"), "repeal_event", ["successor_law_id"])
    op.create_table(
        "version",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("law_id", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(length=100), nullable=False),
        sa.Column("promulgated", sa.Date(), nullable=True),
        sa.Column("effective_from", sa.Date(), nullable=True),
        sa.Column("effective_to", sa.Date(), nullable=True),
        sa.Column("effective_rule", sa.String(length=200), nullable=True),
        sa.Column("article_count", sa.Integer(), nullable=False),
        sa.Column("has_text", sa.Boolean(), nullable=False),
        sa.Column("source", sa.String(length=1000), nullable=True),
        sa.Column("notes", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["law_id"], ["law.id"], name=op.f("fk_version_law_id_law"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_version")),
    )
    op.create_index(
        op.f("ix_version_law_id_effective_from"), "version", ["law_id", "effective_from"]
    )
    op.create_table(
        "article",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("suffix", sa.String(length=20), nullable=False),
        sa.Column("label", sa.String(length=100), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.Column("item_counts", sa.JSON(), nullable=False),
        sa.Column("chapter_path", sa.JSON(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("paragraphs", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["version.id"],
            name=op.f("fk_article_version_id_version"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_article")),
        sa.UniqueConstraint(
            "version_id", "number", "suffix", name=op.f("uq_article_version_id_number_suffix")
        ),
    )
    op.create_table(
        "correspondence",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("dataset_id", sa.Integer(), nullable=False),
        sa.Column("from_law_id", sa.Integer(), nullable=False),
        sa.Column("from_version_id", sa.Integer(), nullable=True),
        sa.Column("from_number", sa.Integer(), nullable=False),
        sa.Column("from_suffix", sa.String(length=20), nullable=False),
        sa.Column("to_law_id", sa.Integer(), nullable=False),
        sa.Column("to_version_id", sa.Integer(), nullable=True),
        sa.Column("to_number", sa.Integer(), nullable=False),
        sa.Column("to_suffix", sa.String(length=20), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("similarity", sa.Float(), nullable=True),
        sa.Column("changed", sa.Boolean(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["dataset_id"],
            ["dataset_manifest.id"],
            name=op.f("fk_correspondence_dataset_id_dataset_manifest"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["from_law_id"],
            ["law.id"],
            name=op.f("fk_correspondence_from_law_id_law"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["from_version_id"],
            ["version.id"],
            name=op.f("fk_correspondence_from_version_id_version"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["to_law_id"],
            ["law.id"],
            name=op.f("fk_correspondence_to_law_id_law"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["to_version_id"],
            ["version.id"],
            name=op.f("fk_correspondence_to_version_id_version"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_correspondence")),
    )
    op.create_index(op.f("ix_correspondence_dataset_id"), "correspondence", ["dataset_id"])
    op.create_index(
        op.f("ix_correspondence_from_law_id_from_number"),
        "correspondence",
        ["from_law_id", "from_number"],
    )
    op.create_index(
        op.f("ix_correspondence_from_version_id"), "correspondence", ["from_version_id"]
    )
    op.create_index(op.f("ix_correspondence_to_law_id"), "correspondence", ["to_law_id"])
    op.create_index(op.f("ix_correspondence_to_version_id"), "correspondence", ["to_version_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_correspondence_to_version_id"), table_name="correspondence")
    op.drop_index(op.f("ix_correspondence_to_law_id"), table_name="correspondence")
    op.drop_index(op.f("ix_correspondence_from_version_id"), table_name="correspondence")
    op.drop_index(op.f("ix_correspondence_from_law_id_from_number"), table_name="correspondence")
    op.drop_index(op.f("ix_correspondence_dataset_id"), table_name="correspondence")
    op.drop_table("correspondence")
    op.drop_table("article")
    op.drop_index(op.f("ix_version_law_id_effective_from"), table_name="version")
    op.drop_table("version")
    op.drop_index(op.f("ix_repeal_event_successor_law_id"), table_name="repeal_event")
    op.drop_index(op.f("ix_repeal_event_law_id"), table_name="repeal_event")
    op.drop_index(op.f("ix_repeal_event_dataset_id"), table_name="repeal_event")
    op.drop_table("repeal_event")
    op.drop_index(op.f("ix_law_alias_key"), table_name="law_alias")
    op.drop_table("law_alias")
    op.drop_index(op.f("ix_law_level"), table_name="law")
    op.drop_index(op.f("ix_law_dataset_id"), table_name="law")
    op.drop_table("law")
    op.drop_index(op.f("ix_import_issue_dataset_id"), table_name="import_issue")
    op.drop_table("import_issue")
    op.drop_table("dataset_manifest")
