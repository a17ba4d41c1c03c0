"""Forgetting over time: episodes' detail in cold storage, retention's changes and their
reasons, agents' own size limits, a fact's rank factor, and jobs on an agent (its retention
run; one waits at most).

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "memory", sa.Column("rank_factor", sa.Float(), server_default=sa.text("1"), nullable=False)
    )
    op.create_table(
        "memory_cold",
        sa.Column("memory_id", sa.Uuid(), nullable=False),
        sa.Column("fields", postgresql.JSONB(), nullable=False),
        sa.Column("full_text", sa.Text(), nullable=False),
        sa.Column("full_tokens", postgresql.JSONB(), nullable=False),
        sa.Column(
            "moved_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.PrimaryKeyConstraint("memory_id", name="pk_memory_cold"),
        sa.ForeignKeyConstraint(
            ["memory_id"],
            ["memory.id"],
            ondelete="CASCADE",
            name="fk_memory_cold_memory_id_memory",
        ),
    )
    op.create_table(
        "retention_change",
        sa.Column("id", sa.BigInteger(), sa.Identity(), nullable=False),
        sa.Column("agent_id", sa.Uuid(), nullable=False),
        sa.Column("memory_id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("rule", sa.String(32), nullable=False),
        sa.Column("from_state", sa.String(16), nullable=False),
        sa.Column("to_state", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("details", postgresql.JSONB(), nullable=False),
        sa.Column("as_of", sa.DateTime(timezone=True), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("restored_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["agent_id"],
            ["agent.id"],
            ondelete="CASCADE",
            name="fk_retention_change_agent_id_agent",
        ),
        sa.ForeignKeyConstraint(
            ["memory_id"],
            ["memory.id"],
            ondelete="CASCADE",
            name="fk_retention_change_memory_id_memory",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_retention_change"),
    )
    op.create_index("ix_retention_change_agent_id", "retention_change", ["agent_id"])
    op.create_index("ix_retention_change_memory", "retention_change", ["memory_id", "id"])
    op.create_table(
        "retention_limit",
        sa.Column("agent_id", sa.Uuid(), nullable=False),
        sa.Column("max_active_memories", sa.Integer(), nullable=True),
        sa.Column("max_active_tokens", sa.BigInteger(), nullable=True),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.PrimaryKeyConstraint("agent_id", name="pk_retention_limit"),
        sa.ForeignKeyConstraint(
            ["agent_id"],
            ["agent.id"],
            ondelete="CASCADE",
            name="fk_retention_limit_agent_id_agent",
        ),
    )
    op.add_column(
        "job",
        sa.Column(
            "agent_id",
            sa.Uuid(),
            sa.ForeignKey("agent.id", ondelete="CASCADE", name="fk_job_agent_id_agent"),
            nullable=True,
        ),
    )
    op.drop_constraint("ck_job_one_subject", "job", type_="check")
    op.create_check_constraint(
        "ck_job_one_subject", "job", "num_nonnulls(memory_id, session_id, agent_id) = 1"
    )
    op.create_index("ix_job_agent_id", "job", ["agent_id"])
    op.create_index(
        "ix_job_agent_waiting",
        "job",
        ["agent_id", "task"],
        unique=True,
        postgresql_where=sa.text("state = 'queued'"),
    )


def downgrade() -> None:
    op.execute("DELETE FROM job WHERE agent_id IS NOT NULL")
    op.drop_index("ix_job_agent_waiting", table_name="job")
    op.drop_index("ix_job_agent_id", table_name="job")
    op.drop_constraint("ck_job_one_subject", "job", type_="check")
    op.create_check_constraint(
        "ck_job_one_subject", "job", "num_nonnulls(memory_id, session_id) = 1"
    )
    op.drop_column("job", "agent_id")
    op.drop_table("retention_limit")
    op.drop_table("retention_change")
    op.drop_table("memory_cold")
    op.drop_column("memory", "rank_factor")
