"""The migrations build exactly the schema the models describe."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.models import Base


def _differences(connection: Connection) -> list[object]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


async def test_migrated_database_matches_the_models(connection: AsyncConnection) -> None:
    assert await connection.run_sync(_differences) == []


async def test_index_storage_options_match_the_models(connection: AsyncConnection) -> None:
    """Options alembic does not compare: each index's `postgresql_with` is what it was built with
    (a GIN index that takes entries through a pending list slows every word search)."""
    for table in Base.metadata.tables.values():
        for index in table.indexes:
            wanted = index.dialect_options["postgresql"]["with"] or {}
            options = await connection.scalar(
                text("SELECT reloptions FROM pg_class WHERE relname = :name"),
                {"name": index.name},
            )
            assert dict(option.split("=", 1) for option in options or []) == dict(wanted), (
                index.name
            )
