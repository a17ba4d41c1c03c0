"""A session message's vector is kept in its row (storage MAIN), not in the TOAST table.

pgvector's type asks for EXTERNAL storage: a row over about 2 KB has its largest values moved
out of line, and a 384-dimension vector (1.5 KB) beside a message's text usually goes. Recall's
exact scan of a session's evicted messages then reads every vector from the TOAST table: on a
5,000-message session the statement read 7,911 buffers and took 25 ms; with the vectors in the
row, 2,354 buffers and 6 to 10 ms. MAIN keeps a vector inline unless the row cannot fit a page
otherwise (the text goes out of line first), so larger vectors still fit. The vectors already
stored are rewritten once, here.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-23
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("ALTER TABLE session_message ALTER COLUMN embedding SET STORAGE MAIN")
    # A new value, not the same one: an unchanged out-of-line value keeps its TOAST pointer.
    op.execute(
        "UPDATE session_message SET embedding = CAST(CAST(embedding AS text) AS vector) "
        "WHERE embedding IS NOT NULL"
    )


def downgrade() -> None:
    op.execute("ALTER TABLE session_message ALTER COLUMN embedding SET STORAGE EXTERNAL")
