"""Jobs on a session, besides jobs on a memory: its span summaries and its messages' vectors.

A job names exactly one of the two. At most one job of a task waits per session: a session's
job does all of the session's pending work of that task, so appends while one waits add none.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.alter_column("job", "memory_id", nullable=True)
    op.add_column(
        "job",
        sa.Column(
            "session_id",
            sa.Uuid(),
            sa.ForeignKey("conversation_session.id", ondelete="CASCADE"),
            nullable=True,
        ),
    )
    op.create_check_constraint(
        "ck_job_one_subject", "job", "num_nonnulls(memory_id, session_id) = 1"
    )
    op.create_index("ix_job_session_id", "job", ["session_id"])
    op.create_index(
        "ix_job_session_waiting",
        "job",
        ["session_id", "task"],
        unique=True,
        postgresql_where=sa.text("state = 'queued'"),
    )


def downgrade() -> None:
    op.execute("DELETE FROM job WHERE session_id IS NOT NULL")
    op.drop_index("ix_job_session_waiting", table_name="job")
    op.drop_index("ix_job_session_id", table_name="job")
    op.drop_constraint("ck_job_one_subject", "job", type_="check")
    op.drop_column("job", "session_id")
    op.alter_column("job", "memory_id", nullable=False)
