"""Context builds, agents' custom frames, and the memories' timeline (order of writing).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from collections.abc import Sequence

import sqlalchemy as sa
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "agent",
        sa.Column("frames", postgresql.JSONB(), server_default="{}", nullable=False),
    )
    op.add_column("memory", sa.Column("seq", sa.BigInteger(), sa.Identity(), nullable=False))
    op.create_index("ix_memory_agent_timeline", "memory", ["agent_id", "occurred_at", "seq"])
    op.create_table(
        "context_build",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("tenant_id", sa.Uuid(), nullable=False),
        sa.Column("agent_id", sa.Uuid(), nullable=False),
        sa.Column("parent_id", sa.Uuid()),
        sa.Column("input", sa.Text(), nullable=False),
        sa.Column("frame", sa.String(64), nullable=False),
        sa.Column("budget", sa.Integer(), nullable=False),
        sa.Column("tokens_used", sa.Integer(), nullable=False),
        sa.Column("request", postgresql.JSONB(), nullable=False),
        sa.Column("response", postgresql.JSONB(), nullable=False),
        sa.Column("item_ids", postgresql.ARRAY(sa.Uuid()), nullable=False),
        sa.Column("centroid", Vector()),
        sa.Column("relevance", sa.Float()),
        sa.Column("feedback", postgresql.JSONB()),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name="pk_context_build"),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenant.id"], name="fk_context_build_tenant_id_tenant"
        ),
        sa.ForeignKeyConstraint(["agent_id"], ["agent.id"], name="fk_context_build_agent_id_agent"),
        sa.ForeignKeyConstraint(
            ["parent_id"], ["context_build.id"], name="fk_context_build_parent_id_context_build"
        ),
    )
    op.create_index("ix_context_build_tenant_id", "context_build", ["tenant_id"])
    op.create_index("ix_context_build_agent_created", "context_build", ["agent_id", "created_at"])


def downgrade() -> None:
    op.drop_table("context_build")
    op.drop_index("ix_memory_agent_timeline", table_name="memory")
    op.drop_column("memory", "seq")
    op.drop_column("agent", "frames")
