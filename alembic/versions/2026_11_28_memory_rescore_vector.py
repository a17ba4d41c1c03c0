"""A memory's second vector, from the rescoring model (CE_EMBEDDINGS__RESCORE_MODEL), which a
build judges its candidates with; and the model it came from. Not indexed: a build reads it for
its candidates, and scans it exactly only on agents small enough for an exact search.

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from pgvector.sqlalchemy import Vector

from alembic import op

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("memory", sa.Column("rescore_embedding", Vector(), nullable=True))
    op.add_column("memory", sa.Column("rescore_model", sa.String(200), nullable=True))
    # The memories that have a second vector: what a start checks against the setting, without
    # reading the table when none has (the setting never set).
    op.create_index(
        "ix_memory_rescored",
        "memory",
        ["rescore_model"],
        postgresql_where=sa.text("rescore_model IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_memory_rescored", table_name="memory")
    op.drop_column("memory", "rescore_model")
    op.drop_column("memory", "rescore_embedding")
