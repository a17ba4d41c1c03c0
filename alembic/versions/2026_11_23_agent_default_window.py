"""An agent's window defaults: the fields of a build's window it gives (any of them), between
the request's window and the settings.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("agent", sa.Column("default_window", postgresql.JSONB(), nullable=True))


def downgrade() -> None:
    op.drop_column("agent", "default_window")
