"""Jobs failed for good before provider outages were told apart from rejected records: queue
them again, so those an outage failed are done now and a record the provider rejects fails
again, at once, with its reason.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        "UPDATE job SET state = 'queued', run_after = now(), finished_at = NULL, "
        "updated_at = now() WHERE state = 'failed'"
    )


def downgrade() -> None:
    pass  # the jobs have run again; there is nothing to undo
