"""Facts that point at a successor are found by an index.

A memory is now erased by DELETE. Erasing one makes PostgreSQL look for the facts whose
`superseded_by` names it (the foreign key's check), and the service repoints those facts at
its successor: without an index both read the whole memory table. Few facts are superseded,
so the index holds only those.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_memory_superseded_by",
        "memory",
        ["superseded_by"],
        postgresql_where=sa.text("superseded_by IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_memory_superseded_by", table_name="memory")
