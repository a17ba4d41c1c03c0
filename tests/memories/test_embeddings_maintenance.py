"""The embedding dimension is checked at startup, and `reembed` recomputes every vector."""

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.db import Database
from app.core.worker import Worker
from app.memories.maintenance import reembed_all
from app.runtime import StartupError, prepare_schema
from tests.factories import Tenancy, fact, put_agent, write


async def test_startup_refuses_a_different_dimension(database: Database) -> None:
    with pytest.raises(StartupError, match="python -m app reembed"):
        await prepare_schema(database, "text-embedding-3-small", 1536)


async def test_reembed_clears_and_recomputes_every_vector(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    worker: Worker,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(client, tenancy)
    memory = await write(client, tenancy, fact())
    await worker.drain()
    async with sessionmaker.begin() as session:
        queued = await reembed_all(session, "all-MiniLM-L6-v2", 384, max_attempts=3)
    assert queued >= 1
    cleared = (await client.get(f"/memories/{memory['id']}", headers=tenancy.headers)).json()
    assert cleared["provenance"]["embedded_at"] is None
    assert await worker.drain() >= 1
    again = (await client.get(f"/memories/{memory['id']}", headers=tenancy.headers)).json()
    assert again["provenance"]["embedded_at"] is not None
