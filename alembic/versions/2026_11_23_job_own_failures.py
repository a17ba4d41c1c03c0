"""Jobs count the failures that are their own (an outage is not), and the embed jobs failed by
outages before that are queued again.

Before this, every error counted towards `max_attempts`, so an outage longer than a few minutes
failed every job it met. Those whose memory still has no vector are queued again: the worker
embeds them now, or fails them again, at once and with its reason, if the provider rejects the
record itself. (A failed LLM summary leaves the extractive one in place; those stay as they are.)

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "job", sa.Column("failures", sa.Integer(), server_default=sa.text("0"), nullable=False)
    )
    op.execute(
        "UPDATE job SET state = 'queued', run_after = now(), finished_at = NULL, "
        "updated_at = now() "
        "FROM memory WHERE job.memory_id = memory.id AND job.state = 'failed' "
        "AND job.task = 'embed' AND memory.embedding IS NULL"
    )


def downgrade() -> None:
    op.drop_column("job", "failures")
