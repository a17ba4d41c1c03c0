"""Conversation sessions of an agent and their messages, numbered in conversation order.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _now() -> sa.TextClause:
    return sa.text("now()")


def upgrade() -> None:
    op.create_table(
        "conversation_session",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("tenant_id", sa.Uuid(), nullable=False),
        sa.Column("agent_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.Column("message_count", sa.Integer(), server_default="0", nullable=False),
        sa.Column("token_count", sa.BigInteger(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_conversation_session"),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenant.id"], name="fk_conversation_session_tenant_id_tenant"
        ),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agent.id"], name="fk_conversation_session_agent_id_agent"
        ),
        sa.UniqueConstraint("agent_id", "name", name="uq_conversation_session_agent_id"),
    )
    op.create_table(
        "session_message",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("session_id", sa.Uuid(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("name", sa.String(64)),
        sa.Column("tool_call_id", sa.String(200)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_session_message"),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["conversation_session.id"],
            name="fk_session_message_session_id_conversation_session",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("session_id", "seq", name="uq_session_message_session_id"),
        sa.CheckConstraint(
            "role IN ('user', 'assistant', 'system', 'tool')", name="ck_session_message_role"
        ),
        sa.CheckConstraint(
            "(role = 'tool') = (tool_call_id IS NOT NULL)",
            name="ck_session_message_tool_call_id",
        ),
    )


def downgrade() -> None:
    op.drop_table("session_message")
    op.drop_table("conversation_session")
