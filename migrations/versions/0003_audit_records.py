"""The audit record: gated answers (cases), their attempts and each citation's verdict.

Times are stored in UTC (timezone-aware on PostgreSQL, UTC without offset on SQLite; the ORM
type legaldb.orm.UtcDateTime converts). No raw subject or session id is stored: pseudonyms only.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "audit_case",
        sa.Column("case_id", sa.String(length=32), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("subject", sa.String(length=80), nullable=True),
        sa.Column("session", sa.String(length=80), nullable=False),
        sa.Column("question", sa.Text(), nullable=True),
        sa.Column("as_of", sa.Date(), nullable=False),
        sa.Column("policy", sa.JSON(), nullable=False),
        sa.Column("policy_id", sa.String(length=16), nullable=False),
        sa.Column("statute_source", sa.String(length=1000), nullable=False),
        sa.Column("statute_snapshot", sa.String(length=200), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=False),
        sa.Column("premise_facts", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=30), nullable=False),
        sa.Column("delivery", sa.String(length=30), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("attempt_count", sa.Integer(), nullable=False),
        sa.CheckConstraint("attempt_count >= 0", name=op.f("ck_audit_case_attempt_count")),
        sa.PrimaryKeyConstraint("case_id", name=op.f("pk_audit_case")),
    )
    for column in ("recorded_at", "session", "subject"):
        op.create_index(op.f(f"ix_audit_case_{column}"), "audit_case", [column])

    op.create_table(
        "audit_attempt",
        sa.Column("case_id", sa.String(length=32), nullable=False),
        sa.Column("attempt", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("answer_sha256", sa.String(length=64), nullable=False),
        sa.Column("decision", sa.String(length=20), nullable=False),
        sa.Column("verifiable_rate", sa.Float(), nullable=True),
        sa.Column("citations", sa.Integer(), nullable=False),
        sa.Column("provisions", sa.Integer(), nullable=False),
        sa.Column("verified", sa.Integer(), nullable=False),
        sa.Column("deprecated", sa.Integer(), nullable=False),
        sa.Column("not_yet_effective", sa.Integer(), nullable=False),
        sa.Column("unverified", sa.Integer(), nullable=False),
        sa.Column("failures", sa.JSON(), nullable=False),
        sa.Column("standards", sa.JSON(), nullable=False),
        sa.Column("failed_standards", sa.JSON(), nullable=False),
        sa.Column("unsupported_conclusions", sa.JSON(), nullable=False),
        sa.Column("tail_coverage", sa.JSON(), nullable=False),
        sa.Column("injected_facts", sa.JSON(), nullable=False),
        sa.Column("facts", sa.JSON(), nullable=False),
        sa.Column("rerun_requested", sa.Boolean(), nullable=False),
        sa.CheckConstraint("attempt >= 1", name=op.f("ck_audit_attempt_attempt")),
        sa.CheckConstraint(
            "verifiable_rate IS NULL OR (verifiable_rate >= 0 AND verifiable_rate <= 1)",
            name=op.f("ck_audit_attempt_verifiable_rate"),
        ),
        sa.ForeignKeyConstraint(
            ["case_id"],
            ["audit_case.case_id"],
            name=op.f("fk_audit_attempt_case_id_audit_case"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("case_id", "attempt", name=op.f("pk_audit_attempt")),
    )
    op.create_table(
        "audit_citation",
        sa.Column("case_id", sa.String(length=32), nullable=False),
        sa.Column("attempt", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("position", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("surface", sa.Text(), nullable=False),
        sa.Column("span_start", sa.Integer(), nullable=False),
        sa.Column("span_end", sa.Integer(), nullable=False),
        sa.Column("law", sa.String(length=500), nullable=True),
        sa.Column("law_as_written", sa.String(length=500), nullable=True),
        sa.Column("implicit", sa.Boolean(), nullable=False),
        sa.Column("article", sa.Integer(), nullable=False),
        sa.Column("article_suffix", sa.String(length=20), nullable=True),
        sa.Column("paragraph", sa.Integer(), nullable=True),
        sa.Column("item", sa.Integer(), nullable=True),
        sa.Column("provision", sa.String(length=700), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("reason", sa.String(length=40), nullable=False),
        sa.Column("level", sa.String(length=20), nullable=True),
        sa.Column("article_count", sa.Integer(), nullable=True),
        sa.Column("paragraph_count", sa.Integer(), nullable=True),
        sa.Column("item_count", sa.Integer(), nullable=True),
        sa.Column("version_label", sa.String(length=100), nullable=True),
        sa.Column("repealed_on", sa.Date(), nullable=True),
        sa.Column("quote_verdict", sa.String(length=10), nullable=False),
        sa.Column("quote_score", sa.Float(), nullable=True),
        sa.Column("number_conflicts", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["case_id", "attempt"],
            ["audit_attempt.case_id", "audit_attempt.attempt"],
            name=op.f("fk_audit_citation_case_id_audit_attempt"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("case_id", "attempt", "position", name=op.f("pk_audit_citation")),
    )


def downgrade() -> None:
    op.drop_table("audit_citation")
    op.drop_table("audit_attempt")
    for column in ("recorded_at", "session", "subject"):
        op.drop_index(op.f(f"ix_audit_case_{column}"), table_name="audit_case")
    op.drop_table("audit_case")
