"""A memory's lifecycle log: each action taken on it (confirm, invalidate, record an outcome,
…) with its time and the states before and after, for the inspector's state history.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "memory_transition",
        sa.Column("id", sa.BigInteger(), sa.Identity(), nullable=False),
        sa.Column("memory_id", sa.Uuid(), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("from_state", sa.String(16), nullable=False),
        sa.Column("to_state", sa.String(16), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.ForeignKeyConstraint(
            ["memory_id"],
            ["memory.id"],
            ondelete="CASCADE",
            name="fk_memory_transition_memory_id_memory",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_memory_transition"),
    )
    op.create_index("ix_memory_transition_memory", "memory_transition", ["memory_id", "id"])


def downgrade() -> None:
    op.drop_table("memory_transition")
