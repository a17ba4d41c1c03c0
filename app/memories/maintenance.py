"""Operator tasks on the memory store."""

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.jobs import JobRepository
from app.memories.repository import MemoryRepository


async def reembed_all(session: AsyncSession, dimensions: int, max_attempts: int) -> int:
    """Switch the embedding column to `dimensions` and queue every memory for re-embedding."""
    memories = MemoryRepository(session)
    await memories.reset_embeddings(dimensions)
    memory_ids = await memories.all_ids()
    await JobRepository(session).enqueue(memory_ids, "embed", max_attempts=max_attempts)
    return len(memory_ids)
