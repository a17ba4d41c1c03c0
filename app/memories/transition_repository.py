"""SQL of a memory's lifecycle log (`MemoryTransition`)."""

import uuid
from collections.abc import Sequence

from pydantic import JsonValue
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.time import utcnow
from app.memories.models import MemoryTransition


class TransitionRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    def record(
        self,
        memory_id: uuid.UUID,
        action: str,
        from_state: str,
        to_state: str,
        changes: dict[str, JsonValue] | None = None,
    ) -> None:
        """Log one lifecycle action, in the request's transaction."""
        self.session.add(
            MemoryTransition(
                memory_id=memory_id,
                action=action,
                from_state=from_state,
                to_state=to_state,
                at=utcnow(),
                changes=changes,
            )
        )

    async def of(self, memory_id: uuid.UUID, limit: int) -> Sequence[MemoryTransition]:
        """The memory's latest actions, oldest first."""
        latest = (
            select(MemoryTransition)
            .where(MemoryTransition.memory_id == memory_id)
            .order_by(MemoryTransition.id.desc())
            .limit(limit)
        )
        return list(reversed((await self.session.scalars(latest)).all()))
