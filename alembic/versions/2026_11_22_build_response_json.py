"""A build's stored response is `json`: written as serialized, read back whole, never queried.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("ALTER TABLE context_build ALTER COLUMN response TYPE json USING response::json")


def downgrade() -> None:
    op.execute("ALTER TABLE context_build ALTER COLUMN response TYPE jsonb USING response::jsonb")
