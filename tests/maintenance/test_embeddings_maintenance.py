"""The embedding dimension is checked at startup, `reembed` recomputes every vector, and
`rerender` brings representations written by an older version up to date."""

import uuid

import httpx
import pytest
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.db import Database
from app.core.worker import Worker
from app.maintenance.embeddings import EmbeddingModelChanged, check_embedding_model, reembed_all
from app.maintenance.reembedding import reembed
from app.maintenance.rerender import Rerendered, rerender_all
from app.memories.models import Memory
from app.memories.repository import EmbeddingSpaceRepository, MemoryRepository
from app.providers.container import Providers
from app.providers.embeddings import LOCAL_MODEL
from app.runtime import StartupError, prepare_schema
from tests.factories import Tenancy, decision, fact, put_agent, write


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


async def test_rerender_brings_old_representations_up_to_date(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    worker: Worker,
    sessionmaker: async_sessionmaker[AsyncSession],
    providers: Providers,
    settings: Settings,
) -> None:
    await put_agent(client, tenancy)
    memory = await write(client, tenancy, decision("Chose Postgres over ChromaDB"))
    await worker.drain()
    current = (await client.get(f"/memories/{memory['id']}", headers=tenancy.headers)).json()
    async with sessionmaker.begin() as session:  # as an older version rendered it
        await session.execute(
            update(Memory)
            .where(Memory.id == uuid.UUID(memory["id"]))
            .values(summary="Decision: Chose Postgres over ChromaDB.", full_text="Decision.")
        )
    heard: list[Rerendered] = []
    done = await rerender_all(
        sessionmaker, providers, settings, batch_size=1, progress=heard.append
    )
    assert (done.changed, done.embeds) == (1, 1)
    # The count so far after each batch (of one here), up to the whole.
    assert [so_far.memories for so_far in heard] == list(range(1, done.memories + 1))
    assert heard[-1] == done
    again = (await client.get(f"/memories/{memory['id']}", headers=tenancy.headers)).json()
    assert again["representations"] == current["representations"]
    assert await worker.drain() >= 1  # the full text changed back: embedded again
    assert (await rerender_all(sessionmaker, providers, settings)).changed == 0


async def test_reembed_with_the_same_model_queues_only_what_has_no_vector(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    worker: Worker,
    sessionmaker: async_sessionmaker[AsyncSession],
    settings: Settings,
) -> None:
    await put_agent(client, tenancy)
    kept = (await write(client, tenancy, fact("Staging runs in Frankfurt.")))["id"]
    lost = (await write(client, tenancy, fact("Backups run at 02:00 UTC.")))["id"]
    await worker.drain()
    async with sessionmaker.begin() as session:  # as a run stopped halfway leaves one
        await session.execute(
            update(Memory).where(Memory.id == uuid.UUID(lost)).values(embedding=None)
        )
        before = await session.scalar(
            select(Memory.embedded_at).where(Memory.id == uuid.UUID(kept))
        )
    said: list[str] = []
    assert await reembed(sessionmaker, settings, said.append, force=False)
    assert "1 memories have none yet" in said[0]
    assert await worker.drain() == 1  # that one alone
    async with sessionmaker() as session:
        vectors = await session.execute(
            select(Memory.id, Memory.embedding.is_not(None), Memory.embedded_at).where(
                Memory.id.in_([uuid.UUID(kept), uuid.UUID(lost)])
            )
        )
        found = {str(row[0]): (row[1], row[2]) for row in vectors}
    assert found[lost][0] is True
    assert found[kept] == (True, before)  # not dropped nor recomputed
    said.clear()
    assert not await reembed(sessionmaker, settings, said.append, force=False)
    assert "nothing to re-embed" in said[0]
