"""The review queue of the model judge: citations judged below the confidence threshold, each
with the judge's probabilities and, once reviewed, the reviewer's decision.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "judge_review",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("case_id", sa.String(length=32), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("span_start", sa.Integer(), nullable=False),
        sa.Column("span_end", sa.Integer(), nullable=False),
        sa.Column("enqueued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("as_of", sa.Date(), nullable=False),
        sa.Column("law", sa.String(length=500), nullable=False),
        sa.Column("provision", sa.String(length=700), nullable=False),
        sa.Column("claim", sa.Text(), nullable=False),
        sa.Column("article_text", sa.Text(), nullable=False),
        sa.Column("p_supports", sa.Float(), nullable=False),
        sa.Column("p_contradicts", sa.Float(), nullable=False),
        sa.Column("p_says_nothing", sa.Float(), nullable=False),
        sa.Column("judge_relation", sa.String(length=20), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("threshold", sa.Float(), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=True),
        sa.Column("decision", sa.String(length=20), nullable=True),
        sa.Column("reviewer", sa.String(length=80), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "decision IS NULL OR decision IN ('supports', 'contradicts', 'says_nothing')",
            name=op.f("ck_judge_review_decision"),
        ),
        sa.ForeignKeyConstraint(
            ["case_id", "attempt"],
            ["audit_attempt.case_id", "audit_attempt.attempt"],
            name=op.f("fk_judge_review_case_id_audit_attempt"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judge_review")),
        sa.UniqueConstraint(
            "case_id",
            "attempt",
            "span_start",
            "span_end",
            name=op.f("uq_judge_review_case_id_attempt_span_start_span_end"),
        ),
    )
    for column in ("case_id", "enqueued_at", "decided_at"):
        op.create_index(op.f(f"ix_judge_review_{column}"), "judge_review", [column])


def downgrade() -> None:
    for column in ("decided_at", "enqueued_at", "case_id"):
        op.drop_index(op.f(f"ix_judge_review_{column}"), table_name="judge_review")
    op.drop_table("judge_review")
