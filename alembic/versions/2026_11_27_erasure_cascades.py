"""Agents and sessions are listed and erased.

The lists go newest first, page by page, each along an index. Erasing an agent takes
everything it owns with it: its memories, sessions and stored builds go by their foreign keys'
cascades (and what hangs off those already did: jobs, messages, summaries, efforts,
transitions, retention records). A build whose parent is erased (a session's builds are erased
with it) keeps no pointer to it; the index finds such children, where the cascade would
otherwise read the whole table for each build erased.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (constraint, table, column, referred table, ON DELETE now)
_KEYS = (
    ("fk_memory_agent_id_agent", "memory", "agent_id", "agent", "CASCADE"),
    (
        "fk_conversation_session_agent_id_agent",
        "conversation_session",
        "agent_id",
        "agent",
        "CASCADE",
    ),
    ("fk_context_build_agent_id_agent", "context_build", "agent_id", "agent", "CASCADE"),
    (
        "fk_context_build_parent_id_context_build",
        "context_build",
        "parent_id",
        "context_build",
        "SET NULL",
    ),
)


def _replace_keys(*, ondelete: bool) -> None:
    for name, table, column, referred, action in _KEYS:
        op.drop_constraint(name, table, type_="foreignkey")
        op.create_foreign_key(
            name, table, referred, [column], ["id"], ondelete=action if ondelete else None
        )


def upgrade() -> None:
    op.create_index("ix_agent_tenant_created", "agent", ["tenant_id", "created_at", "name"])
    op.create_index(
        "ix_conversation_session_agent_created",
        "conversation_session",
        ["agent_id", "created_at", "name"],
    )
    op.create_index(
        "ix_context_build_parent_id",
        "context_build",
        ["parent_id"],
        postgresql_where=sa.text("parent_id IS NOT NULL"),
    )
    _replace_keys(ondelete=True)


def downgrade() -> None:
    _replace_keys(ondelete=False)
    op.drop_index("ix_context_build_parent_id", table_name="context_build")
    op.drop_index("ix_conversation_session_agent_created", table_name="conversation_session")
    op.drop_index("ix_agent_tenant_created", table_name="agent")
