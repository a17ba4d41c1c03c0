"""Summaries of a session's older messages: depth 1 of aligned blocks of messages, depth d + 1
of consecutive depth-d summaries, depth 0 of one long assistant or tool message; one per
(session, depth, first_seq).

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "session_summary",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("session_id", sa.Uuid(), nullable=False),
        sa.Column("depth", sa.Integer(), nullable=False),
        sa.Column("first_seq", sa.Integer(), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.Column("message_count", sa.Integer(), nullable=False),
        sa.Column("first_message_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_message_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("method", sa.String(length=16), nullable=False),
        sa.Column("quoted_seqs", postgresql.ARRAY(sa.Integer()), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.CheckConstraint("method IN ('extractive', 'llm')", name="ck_session_summary_method"),
        sa.CheckConstraint("depth >= 0 AND first_seq <= last_seq", name="ck_session_summary_span"),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["conversation_session.id"],
            name="fk_session_summary_session_id_conversation_session",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_session_summary"),
        sa.UniqueConstraint(
            "session_id", "depth", "first_seq", name="uq_session_summary_session_id"
        ),
    )


def downgrade() -> None:
    op.drop_table("session_summary")
