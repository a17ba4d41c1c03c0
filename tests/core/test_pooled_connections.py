"""A pooled connection the database closed while it sat in the pool is replaced before a
request uses it: a request after a database restart or a dropped connection does not fail."""

import asyncio

from sqlalchemy import text

from app.core.db import TRUSTED_FOR_SECONDS, Database, asyncpg_url


async def _backend(database: Database) -> int:
    async with database.sessionmaker.begin() as session:
        return int(await session.scalar(text("SELECT pg_backend_pid()")) or 0)


async def test_a_connection_closed_in_the_pool_is_replaced_before_use(database_url: str) -> None:
    database = Database.connect(asyncpg_url(database_url), pool_size=1, max_overflow=0)
    other = Database.connect(asyncpg_url(database_url), pool_size=1, max_overflow=0)
    try:
        first = await _backend(database)
        assert await _backend(database) == first  # the pool hands out the same connection
        async with other.sessionmaker.begin() as session:
            closed = await session.scalar(text("SELECT pg_terminate_backend(:pid)"), {"pid": first})
        assert closed
        await asyncio.sleep(TRUSTED_FOR_SECONDS + 0.2)
        replaced = await _backend(database)  # no error: checked, found closed, replaced
        assert replaced != first
    finally:
        await database.dispose()
        await other.dispose()
