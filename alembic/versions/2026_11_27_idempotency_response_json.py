"""A kept Idempotency-Key response is `json`: a retry gets the first body byte for byte (`jsonb`
reorders the keys of an object, a memory's metadata among them), and nothing queries it.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-27
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        "ALTER TABLE idempotency_record ALTER COLUMN response TYPE json USING response::json"
    )


def downgrade() -> None:
    op.execute(
        "ALTER TABLE idempotency_record ALTER COLUMN response TYPE jsonb USING response::jsonb"
    )
