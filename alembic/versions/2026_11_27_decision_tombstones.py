"""Decisions can be corrected and erased.

A reviewed decision's outcome can be amended: the lifecycle log keeps the outcome and notes
before and after each outcome action (`memory_transition.changes`). An erased memory leaves a
tombstone (its id, kind and time of erasure, no content), so that the stored builds and
calibrations that counted it stay explainable and reading it answers 410 Gone.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("memory_transition", sa.Column("changes", postgresql.JSONB(), nullable=True))
    op.create_table(
        "memory_tombstone",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("tenant_id", sa.Uuid(), nullable=False),
        sa.Column("agent_id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("erased_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenant.id"],
            ondelete="CASCADE",
            name="fk_memory_tombstone_tenant_id_tenant",
        ),
        sa.ForeignKeyConstraint(
            ["agent_id"],
            ["agent.id"],
            ondelete="CASCADE",
            name="fk_memory_tombstone_agent_id_agent",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_memory_tombstone"),
    )
    op.create_index("ix_memory_tombstone_agent_id", "memory_tombstone", ["agent_id"])


def downgrade() -> None:
    op.drop_table("memory_tombstone")
    op.drop_column("memory_transition", "changes")
