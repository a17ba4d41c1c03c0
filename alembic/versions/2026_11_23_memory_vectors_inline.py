"""A memory's vector is kept in its row (storage MAIN), not in the TOAST table, as session
messages' are since 0016.

pgvector's type asks for EXTERNAL storage: a memory's row (its three texts, fields, word
document) often passes about 2 KB, and its 1.5 KB vector is then moved out of line, so every
similarity a search computes from the row reads the TOAST table. MAIN keeps it inline unless the
row cannot fit a page otherwise. The vectors already stored are rewritten once, here.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-23
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("ALTER TABLE memory ALTER COLUMN embedding SET STORAGE MAIN")
    # A new value, not the same one: an unchanged out-of-line value keeps its TOAST pointer.
    op.execute(
        "UPDATE memory SET embedding = CAST(CAST(embedding AS text) AS vector) "
        "WHERE embedding IS NOT NULL"
    )


def downgrade() -> None:
    op.execute("ALTER TABLE memory ALTER COLUMN embedding SET STORAGE EXTERNAL")
