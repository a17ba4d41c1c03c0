"""A memory's second vector (the rescoring model's) is kept in its row (storage MAIN), as its
first is since 0020.

pgvector's type asks for EXTERNAL storage, and at 768 dimensions the vector alone (3 KB) passes
the 2 KB at which PostgreSQL moves values out of line: the exact scan a build makes of the
second model's vectors on an agent of 2,000 memories read 6,954 pages (the rows' and the TOAST
table's) and took 10.6 to 12.4 ms; the same scan of the first model's vectors, kept in the row,
929 pages and 2.1 to 2.7 ms. MAIN keeps the vector in the row unless the row cannot fit a page
otherwise. The vectors already stored are rewritten once, here.

Revision ID: 0029
Revises: 0028
Create Date: 2026-11-29
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0029"
down_revision: str | None = "0028"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("ALTER TABLE memory ALTER COLUMN rescore_embedding SET STORAGE MAIN")
    # A new value, not the same one: an unchanged out-of-line value keeps its TOAST pointer.
    op.execute(
        "UPDATE memory SET rescore_embedding = CAST(CAST(rescore_embedding AS text) AS vector) "
        "WHERE rescore_embedding IS NOT NULL"
    )


def downgrade() -> None:
    op.execute("ALTER TABLE memory ALTER COLUMN rescore_embedding SET STORAGE EXTERNAL")
