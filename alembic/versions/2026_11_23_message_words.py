"""A session message's words, as the memories' are kept: recall finds evicted messages by them.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "session_message",
        sa.Column(
            "words",
            postgresql.TSVECTOR(),
            sa.Computed("to_tsvector('english'::regconfig, content)", persisted=True),
            nullable=False,
        ),
    )
    # GIN over (session, words) through btree_gin, as the memories' index: recall reads only the
    # session's rows; new messages go into it at once, not into a pending list every search scans.
    op.create_index(
        "ix_session_message_session_words",
        "session_message",
        ["session_id", "words"],
        postgresql_using="gin",
        postgresql_with={"fastupdate": "off"},
    )


def downgrade() -> None:
    op.drop_index("ix_session_message_session_words", table_name="session_message")
    op.drop_column("session_message", "words")
