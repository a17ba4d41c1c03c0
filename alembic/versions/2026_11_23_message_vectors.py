"""A session message's vector, in the memories' embedding space: recall finds evicted messages
by their meaning too.

Computed in the background (the session's `embed_messages` job); the messages already stored
are queued here, one job per session. No vector index: recall reads one session's evicted
rows, an exact scan.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from pgvector.sqlalchemy import Vector

from alembic import context, op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    dimensions = int(context.config.attributes.get("embedding_dimensions", 384))
    # The memories' dimension when they have vectors already (a re-embedding may have changed
    # it since the first migration), else the embedder's.
    stored = op.get_bind().scalar(
        sa.text(
            "SELECT atttypmod FROM pg_attribute "
            "WHERE attrelid = 'memory'::regclass AND attname = 'embedding'"
        )
    )
    dimensions = int(stored) if stored is not None and stored > 0 else dimensions
    op.add_column("session_message", sa.Column("embedding", Vector(dimensions), nullable=True))
    op.add_column("session_message", sa.Column("embedding_refused", sa.Text(), nullable=True))
    op.execute(
        "INSERT INTO job (session_id, task, state, attempts, max_attempts) "
        "SELECT id, 'embed_messages', 'queued', 0, 8 FROM conversation_session "
        "WHERE message_count > 0 ON CONFLICT DO NOTHING"
    )


def downgrade() -> None:
    op.execute("DELETE FROM job WHERE task = 'embed_messages'")
    op.drop_column("session_message", "embedding_refused")
    op.drop_column("session_message", "embedding")
