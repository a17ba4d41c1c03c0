"""Embeddings are stored in the memory row, not in the TOAST table.

pgvector's default storage puts a 384-dimension vector (1.5 KB) out of line, so an exact scan
of an agent's vectors fetched each one from the TOAST table: at 2,000 memories the scan read
6,800 buffers in 5.5 ms; stored in the row it reads 1,300 in 1.8 ms (EXPLAIN ANALYZE). Long
texts go out of line instead. Rows written before this keep their vector where it is until it
is recomputed.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("ALTER TABLE memory ALTER COLUMN embedding SET STORAGE MAIN")


def downgrade() -> None:
    op.execute("ALTER TABLE memory ALTER COLUMN embedding SET STORAGE EXTERNAL")
