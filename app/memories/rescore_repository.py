"""The SQL of the rescoring model's backfill at start (`maintenance.queue_rescoring`): which
memories lack its vector, which wait for one, and the vectors and jobs of a model no longer set."""

import uuid

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from app.core.jobs import JobRepository, waiting
from app.memories.models import Memory

# Two processes starting at once: the second waits, then finds the first's jobs.
_LOCK = "ce_queue_rescoring"


class RescoreRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def lock(self) -> None:
        """Hold the backfill's lock until the transaction ends."""
        await self.session.execute(select(func.pg_advisory_xact_lock(func.hashtext(_LOCK))))

    async def drop_other_models(self, model: str | None) -> None:
        """Drop the rescoring vectors of every model but `model` (all of them when None), and
        with none set, the rescore jobs no worker would run."""
        stale: list[ColumnElement[bool]] = [Memory.rescore_model.is_not(None)]
        if model is not None:
            stale.append(Memory.rescore_model != model)
        await self.session.execute(
            update(Memory).where(*stale).values(rescore_embedding=None, rescore_model=None)
        )
        if model is None:
            await JobRepository(self.session).drop_queued("rescore")

    async def unqueued(self) -> list[uuid.UUID]:
        """The memories without a rescoring vector and with no rescore job waiting, oldest
        first."""
        queued = waiting("rescore", Memory.id)
        return list(
            await self.session.scalars(
                select(Memory.id)
                .where(Memory.rescore_model.is_(None), ~queued)
                .order_by(Memory.seq)
            )
        )
