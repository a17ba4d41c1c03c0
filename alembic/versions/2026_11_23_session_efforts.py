"""Efforts of a session: open, concluded or expanded, with their summaries and keywords; each
message names the effort open when it was appended; a session counts its turns (user messages).

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "session_effort",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("session_id", sa.Uuid(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("goal", sa.Text(), nullable=True),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("opened_turn", sa.Integer(), nullable=False),
        sa.Column("concluded_turn", sa.Integer(), nullable=True),
        sa.Column("expanded_turn", sa.Integer(), nullable=True),
        sa.Column("last_referenced_turn", sa.Integer(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=True),
        sa.Column("summary_tokens", sa.Integer(), nullable=True),
        sa.Column("method", sa.String(length=16), nullable=True),
        sa.Column("keywords", postgresql.ARRAY(sa.Text()), server_default="{}", nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("concluded_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "state IN ('open', 'concluded', 'expanded')", name="ck_session_effort_state"
        ),
        sa.CheckConstraint("method IN ('extractive', 'llm')", name="ck_session_effort_method"),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["conversation_session.id"],
            name="fk_session_effort_session_id_conversation_session",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_session_effort"),
        sa.UniqueConstraint("session_id", "number", name="uq_session_effort_session_id"),
    )
    op.create_index(
        "ix_session_effort_one_open",
        "session_effort",
        ["session_id"],
        unique=True,
        postgresql_where=sa.text("state = 'open'"),
    )
    op.add_column("session_message", sa.Column("effort_id", sa.Uuid(), nullable=True))
    op.create_foreign_key(
        "fk_session_message_effort_id_session_effort",
        "session_message",
        "session_effort",
        ["effort_id"],
        ["id"],
        ondelete="SET NULL",
    )
    op.create_index(
        "ix_session_message_effort_id",
        "session_message",
        ["effort_id"],
        postgresql_where=sa.text("effort_id IS NOT NULL"),
    )
    op.add_column(
        "conversation_session",
        sa.Column("turns", sa.Integer(), server_default="0", nullable=False),
    )
    # The sessions of before count the user messages they hold.
    op.execute(
        "UPDATE conversation_session s SET turns = (SELECT count(*) FROM session_message m "
        "WHERE m.session_id = s.id AND m.role = 'user')"
    )


def downgrade() -> None:
    op.drop_column("conversation_session", "turns")
    op.drop_index("ix_session_message_effort_id", table_name="session_message")
    op.drop_constraint(
        "fk_session_message_effort_id_session_effort", "session_message", type_="foreignkey"
    )
    op.drop_column("session_message", "effort_id")
    op.drop_index("ix_session_effort_one_open", table_name="session_effort")
    op.drop_table("session_effort")
