"""The model the stored vectors come from, recorded so that a change of model is noticed.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "embedding_space",
        sa.Column("id", sa.SmallInteger(), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("dimensions", sa.Integer(), nullable=False),
        sa.Column(
            "recorded_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint("id = 1", name="ck_embedding_space_one_row"),
        sa.PrimaryKeyConstraint("id", name="pk_embedding_space"),
    )
    # A database that holds vectors already: they come from the model most of them name.
    op.execute(
        "INSERT INTO embedding_space (id, model, dimensions) "
        "SELECT 1, embedding_model, (SELECT atttypmod FROM pg_attribute "
        "  WHERE attrelid = 'memory'::regclass AND attname = 'embedding') "
        "FROM memory WHERE embedding_model IS NOT NULL "
        "GROUP BY embedding_model ORDER BY count(*) DESC LIMIT 1"
    )


def downgrade() -> None:
    op.drop_table("embedding_space")
