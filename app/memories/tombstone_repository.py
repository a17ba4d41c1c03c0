"""SQL of what is left of erased memories (`MemoryTombstone`)."""

import uuid
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.memories.models import Memory, MemoryTombstone


class TombstoneRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(self, tenant_id: uuid.UUID, memory_id: uuid.UUID) -> MemoryTombstone | None:
        """The tombstone of the tenant's erased memory, if it was erased."""
        return await self.session.scalar(
            select(MemoryTombstone).where(
                MemoryTombstone.id == memory_id, MemoryTombstone.tenant_id == tenant_id
            )
        )

    async def add(self, memory: Memory, erased_at: datetime) -> None:
        """Keep the memory's id, kind and time of erasure (its row is deleted after)."""
        self.session.add(
            MemoryTombstone(
                id=memory.id,
                tenant_id=memory.tenant_id,
                agent_id=memory.agent_id,
                kind=memory.kind,
                erased_at=erased_at,
            )
        )
        await self.session.flush()
