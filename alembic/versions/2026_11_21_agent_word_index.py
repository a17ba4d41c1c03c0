"""Word search through one index on (agent, words), so a word common in other agents costs nothing.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # btree_gin (contrib) lets a GIN index hold the agent beside the words.
    op.execute("CREATE EXTENSION IF NOT EXISTS btree_gin")
    op.create_index(
        "ix_memory_agent_search", "memory", ["agent_id", "search_document"], postgresql_using="gin"
    )
    op.drop_index("ix_memory_search_document", table_name="memory")


def downgrade() -> None:
    op.create_index(
        "ix_memory_search_document", "memory", ["search_document"], postgresql_using="gin"
    )
    op.drop_index("ix_memory_agent_search", table_name="memory")
