"""The embedding dimension is checked at startup, and `reembed` recomputes every vector."""

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.db import Database
from app.core.worker import Worker
from app.memories.maintenance import EmbeddingModelChanged, check_embedding_model, reembed_all
from app.memories.repository import EmbeddingSpaceRepository, MemoryRepository
from app.providers.embeddings import LOCAL_MODEL
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


async def test_another_model_is_refused_only_when_vectors_of_the_old_one_are_stored(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    worker: Worker,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    async def check(model: str) -> int:
        async with sessionmaker.begin() as session:
            return await check_embedding_model(session, model, 384, reembed=False, max_attempts=3)

    await put_agent(client, tenancy)
    await write(client, tenancy, fact())  # not embedded yet: nothing to mix
    assert await check("model-a") == 0
    assert await check(LOCAL_MODEL) == 0  # switching before any vector is stored is free

    await worker.drain()  # now a vector is stored, by the local model
    with pytest.raises(EmbeddingModelChanged, match="python -m app reembed"):
        await check("model-c")
    assert await check(LOCAL_MODEL) == 0
    async with sessionmaker.begin() as session:
        queued = await check_embedding_model(session, "model-c", 384, reembed=True, max_attempts=3)
        space = await EmbeddingSpaceRepository(session).get()
    assert space is not None
    assert space.model == "model-c"
    assert queued >= 1
    # This process still embeds with the local model: it stores none of its vectors now.
    assert await worker.drain() >= 1
    async with sessionmaker() as session:
        assert not await MemoryRepository(session).any_embedded()
