"""Cold storage: a memory's record as it was before retention trimmed it, and its reads."""

import uuid
from collections.abc import Sequence
from datetime import datetime

from pydantic import JsonValue
from sqlalchemy import DateTime, ForeignKey, Text, func, select
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base
from app.memories.models import Memory


class MemoryCold(Base):
    """A memory's record as it was before retention trimmed it: its fields, full text and the
    full text's token counts. Reads of the memory show these instead of the trimmed ones."""

    __tablename__ = "memory_cold"

    memory_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("memory.id", ondelete="CASCADE"), primary_key=True
    )
    fields: Mapped[dict[str, JsonValue]] = mapped_column(JSONB)
    full_text: Mapped[str] = mapped_column(Text)
    full_tokens: Mapped[dict[str, int]] = mapped_column(JSONB)  # by encoding
    moved_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


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
