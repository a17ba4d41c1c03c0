"""Alembic environment: runs on a connection handed over by the service, or on its own."""

import asyncio

from sqlalchemy.engine import Connection

from alembic import context
from app.models import Base

config = context.config
target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata)
    with context.begin_transaction():
        context.run_migrations()


def _run_standalone() -> None:
    """`alembic upgrade head` from a shell: the same path as `python -m app migrate`."""
    from app.core.config import get_settings
    from app.runtime import migrate

    asyncio.run(migrate(get_settings()))


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    _run_standalone()
