"""A memory records whether its writer said when it happened: an episode written without a
time has only the time of its writing, and is no timeline neighbour of what was written in the
same minutes.

Rows written before: without started_at or ended_at and within a minute of their writing, they
were almost surely given no time.

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "memory", sa.Column("dated", sa.Boolean(), server_default=sa.text("true"), nullable=False)
    )
    op.execute(
        "UPDATE memory SET dated = false WHERE fields->>'started_at' IS NULL "
        "AND fields->>'ended_at' IS NULL "
        "AND occurred_at BETWEEN created_at - interval '1 minute' "
        "AND created_at + interval '1 minute'"
    )


def downgrade() -> None:
    op.drop_column("memory", "dated")
