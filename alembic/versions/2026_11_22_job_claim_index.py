"""Claims read only the live jobs of their task, however many done jobs the table keeps.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_LIVE = sa.text("state IN ('queued', 'running')")


def upgrade() -> None:
    # A claim takes a task's oldest live jobs; on (run_after, id) PostgreSQL preferred walking
    # the primary key past every done job (10,000 of them: 2.7 ms per claim, every poll).
    op.drop_index("ix_job_claimable", table_name="job")
    op.create_index("ix_job_claimable", "job", ["task", "id"], postgresql_where=_LIVE)


def downgrade() -> None:
    op.drop_index("ix_job_claimable", table_name="job")
    op.create_index("ix_job_claimable", "job", ["run_after", "id"], postgresql_where=_LIVE)
