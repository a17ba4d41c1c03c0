"""A kept Idempotency-Key response records its request's path: erasing an agent or a session
drops the kept responses of its routes (an effort's, a tool call's), not only those whose body
names it.

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("idempotency_record", sa.Column("target", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("idempotency_record", "target")
