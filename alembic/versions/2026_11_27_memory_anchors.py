"""A memory's anchors: its names and rare terms (`app.providers.anchors`), which tie it to the
memories that speak of the same thing; indexed on (agent, anchor), and found for the memories
written before.

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BATCH = 1000


def upgrade() -> None:
    op.add_column(
        "memory",
        sa.Column(
            "anchors",
            postgresql.ARRAY(sa.Text()),
            server_default=sa.text("'{}'::text[]"),
            nullable=False,
        ),
    )
    _find_anchors()
    op.create_index(
        "ix_memory_agent_anchors",
        "memory",
        ["agent_id", "anchors"],
        postgresql_using="gin",
        postgresql_with={"fastupdate": "off"},
    )


def _find_anchors() -> None:
    """The anchors of every memory written before, from its original text (an episode that
    retention summarized keeps it in memory_cold)."""
    from app.providers.anchors import build_anchor_finder

    finder = build_anchor_finder()
    connection = op.get_bind()
    select = sa.text(
        "SELECT m.id, COALESCE(c.full_text, m.full_text) FROM memory m "
        "LEFT JOIN memory_cold c ON c.memory_id = m.id WHERE m.id > :after ORDER BY m.id "
        "LIMIT :batch"
    )
    update = sa.text("UPDATE memory SET anchors = :anchors WHERE id = :id").bindparams(
        sa.bindparam("anchors", type_=postgresql.ARRAY(sa.Text()))
    )
    after = "00000000-0000-0000-0000-000000000000"
    while rows := connection.execute(select, {"after": after, "batch": _BATCH}).all():
        found = [{"id": row[0], "anchors": finder.find(row[1])} for row in rows]
        if anchored := [row for row in found if row["anchors"]]:
            connection.execute(update, anchored)
        after = rows[-1][0]


def downgrade() -> None:
    op.drop_index("ix_memory_agent_anchors", table_name="memory")
    op.drop_column("memory", "anchors")
