"""The vectors of appended user messages, shared by the API processes (unlogged: a cache that a
crash may empty), so that the build that takes such a message as its input does not embed it
again in another process.

Revision ID: 0028
Revises: 0027
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "input_vector",
        sa.Column("tenant_id", sa.Uuid(), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("digest", sa.LargeBinary(), nullable=False),
        sa.Column(
            "session_id",
            sa.Uuid(),
            sa.ForeignKey("conversation_session.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.PrimaryKeyConstraint("tenant_id", "model", "digest"),
        prefixes=["UNLOGGED"],
    )
    op.create_index("ix_input_vector_created", "input_vector", ["created_at"])


def downgrade() -> None:
    op.drop_table("input_vector")
