"""A memory's anchors: its names and rare terms (`app.providers.anchors`), which tie it to the
memories that speak of the same thing; indexed on (agent, anchor), and found for the memories
written before.

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "memory",
        sa.Column(
            "anchors",
            postgresql.ARRAY(sa.Text()),
            server_default=sa.text("'{}'::text[]"),
            nullable=False,
        ),
    )
    _find_anchors()
    op.create_index(
        "ix_memory_agent_anchors",
        "memory",
        ["agent_id", "anchors"],
        postgresql_using="gin",
        postgresql_with={"fastupdate": "off"},
    )


def _find_anchors() -> None:
    """The anchors of every memory written before."""
    from app.maintenance.anchoring import find_anchors_again

    find_anchors_again(op.get_bind())


def downgrade() -> None:
    op.drop_index("ix_memory_agent_anchors", table_name="memory")
    op.drop_column("memory", "anchors")
