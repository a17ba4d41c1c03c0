"""SQL of cold storage: the records retention moved there (`models.MemoryCold`)."""

import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.memories.models import Memory, MemoryCold


class ColdStorage:
    """Reads of the records retention moved to cold storage."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def originals(self, memory_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, MemoryCold]:
        """The cold records of those memories that have one."""
        if not memory_ids:
            return {}
        rows = await self.session.scalars(
            select(MemoryCold).where(MemoryCold.memory_id.in_(memory_ids))
        )
        return {row.memory_id: row for row in rows}

    async def full_text(self, memory: Memory) -> str:
        """A memory's whole full text: from cold storage when retention trimmed it."""
        if memory.kind != "episode":
            return memory.full_text
        cold = await self.session.get(MemoryCold, memory.id)
        return cold.full_text if cold is not None else memory.full_text
