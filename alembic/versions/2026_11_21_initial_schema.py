"""Initial schema: tenants and keys, agents, memories with vector and text indexes, jobs.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from collections.abc import Sequence

import sqlalchemy as sa
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects import postgresql

from alembic import context, op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _now() -> sa.TextClause:
    return sa.text("now()")


def upgrade() -> None:
    dimensions = int(context.config.attributes.get("embedding_dimensions", 384))
    op.execute("CREATE EXTENSION IF NOT EXISTS vector")

    op.create_table(
        "tenant",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_tenant"),
        sa.UniqueConstraint("name", name="uq_tenant_name"),
    )
    op.create_table(
        "api_key",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("tenant_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("prefix", sa.String(32), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True)),
        sa.PrimaryKeyConstraint("id", name="pk_api_key"),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenant.id"], name="fk_api_key_tenant_id_tenant"),
        sa.UniqueConstraint("key_hash", name="uq_api_key_key_hash"),
    )
    op.create_index("ix_api_key_tenant_id", "api_key", ["tenant_id"])

    op.create_table(
        "agent",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("tenant_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("identity", postgresql.JSONB(), nullable=False),
        sa.Column("working_memory", postgresql.JSONB(), nullable=False),
        sa.Column("default_budget", sa.Integer()),
        sa.Column("model", sa.String(100)),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_agent"),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenant.id"], name="fk_agent_tenant_id_tenant"),
        sa.UniqueConstraint("tenant_id", "name", name="uq_agent_tenant_id"),
    )

    op.create_table(
        "memory",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("tenant_id", sa.Uuid(), nullable=False),
        sa.Column("agent_id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("fields", postgresql.JSONB(), nullable=False),
        sa.Column("micro", sa.Text(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("full_text", sa.Text(), nullable=False),
        sa.Column("summary_source", sa.String(16), nullable=False),
        sa.Column("token_counts", postgresql.JSONB(), nullable=False),
        sa.Column("confidence", sa.Float()),
        sa.Column("outcome", sa.String(16)),
        sa.Column("superseded_by", sa.Uuid()),
        sa.Column("reference_count", sa.Integer(), server_default="0", nullable=False),
        sa.Column("last_referenced_at", sa.DateTime(timezone=True)),
        sa.Column("source", sa.String(200)),
        sa.Column("metadata", postgresql.JSONB(), nullable=False),
        sa.Column("occurred_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.Column("embedding", Vector(dimensions)),
        sa.Column("embedding_model", sa.String(200)),
        sa.Column("embedded_at", sa.DateTime(timezone=True)),
        sa.Column(
            "search_document",
            postgresql.TSVECTOR(),
            sa.Computed("to_tsvector('english'::regconfig, full_text)", persisted=True),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name="pk_memory"),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenant.id"], name="fk_memory_tenant_id_tenant"),
        sa.ForeignKeyConstraint(["agent_id"], ["agent.id"], name="fk_memory_agent_id_agent"),
        sa.ForeignKeyConstraint(
            ["superseded_by"], ["memory.id"], name="fk_memory_superseded_by_memory"
        ),
        sa.CheckConstraint(
            "kind IN ('decision', 'fact', 'procedure', 'episode', 'censor')", name="ck_memory_kind"
        ),
    )
    op.create_index("ix_memory_tenant_id", "memory", ["tenant_id"])
    op.create_index(
        "ix_memory_agent_created",
        "memory",
        ["agent_id", sa.text("created_at DESC"), sa.text("id DESC")],
    )
    op.create_index("ix_memory_agent_kind_state", "memory", ["agent_id", "kind", "state"])
    op.create_index(
        "ix_memory_metadata",
        "memory",
        ["metadata"],
        postgresql_using="gin",
        postgresql_ops={"metadata": "jsonb_path_ops"},
    )
    op.create_index(
        "ix_memory_search_document", "memory", ["search_document"], postgresql_using="gin"
    )
    op.create_index(
        "ix_memory_embedding",
        "memory",
        ["embedding"],
        postgresql_using="hnsw",
        postgresql_ops={"embedding": "vector_cosine_ops"},
    )

    op.create_table(
        "job",
        sa.Column("id", sa.BigInteger(), sa.Identity(), nullable=False),
        sa.Column("memory_id", sa.Uuid(), nullable=False),
        sa.Column("task", sa.String(16), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=False),
        sa.Column("run_after", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.Column("locked_at", sa.DateTime(timezone=True)),
        sa.Column("locked_by", sa.String(100)),
        sa.Column("last_error", sa.Text()),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        sa.PrimaryKeyConstraint("id", name="pk_job"),
        sa.ForeignKeyConstraint(
            ["memory_id"], ["memory.id"], name="fk_job_memory_id_memory", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_job_memory_id", "job", ["memory_id"])
    op.create_index(
        "ix_job_claimable",
        "job",
        ["run_after", "id"],
        postgresql_where=sa.text("state IN ('queued', 'running')"),
    )

    op.create_table(
        "idempotency_record",
        sa.Column("tenant_id", sa.Uuid(), nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("response", postgresql.JSONB()),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "key", name="pk_idempotency_record"),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenant.id"], name="fk_idempotency_record_tenant_id_tenant"
        ),
    )


def downgrade() -> None:
    for table in ("idempotency_record", "job", "memory", "agent", "api_key", "tenant"):
        op.drop_table(table)
