"""Every memory's anchors found again: a lower-case word of everyday English (`rewrote`,
`expires`, `shard`) is no longer an anchor (`app.providers.anchors`, `EVERYDAY_ZIPF`), and the
memories written before keep none of them.

Revision ID: 0030
Revises: 0029
Create Date: 2026-11-29
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0030"
down_revision: str | None = "0029"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    from app.maintenance.anchoring import find_anchors_again

    find_anchors_again(op.get_bind())


def downgrade() -> None:
    """Nothing to undo: the anchors found are as good as the earlier ones for the code
    before, which finds them again as it writes."""
