"""Reads of the job queue for those who watch it: a memory's jobs (its provenance), the
queue's depth and lag (`/metrics`, the probes, `reembed`'s progress)."""

import uuid
from collections.abc import Sequence

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.job_models import Job


class JobReads:
    """Reads of the job table, in the caller's transaction."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def for_memories(self, memory_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, list[Job]]:
        """The jobs of some memories, oldest first."""
        rows = await self.session.scalars(
            select(Job).where(Job.memory_id.in_(memory_ids)).order_by(Job.id)
        )
        jobs: dict[uuid.UUID, list[Job]] = {m: [] for m in memory_ids}
        for job in rows:
            if job.memory_id is not None:  # always: selected by it
                jobs[job.memory_id].append(job)
        return jobs

    async def depth(self) -> dict[tuple[str, str], int]:
        """Open and failed job counts by (task, state)."""
        rows = await self.session.execute(
            select(Job.task, Job.state, func.count())
            .where(Job.state.in_(("queued", "running", "failed")))
            .group_by(Job.task, Job.state)
        )
        return {(r[0], r[1]): r[2] for r in rows}

    async def lag(self) -> dict[str, float]:
        """By task, the seconds the longest-waiting job due to run has waited since it was due
        (its retry delay not counted): the queue's lag."""
        now = func.clock_timestamp()  # not the transaction's start
        waited = func.extract("epoch", now - func.min(Job.run_after))
        rows = await self.session.execute(
            select(Job.task, waited)
            .where(Job.state == "queued", Job.run_after <= now)
            .group_by(Job.task)
        )
        return {r[0]: float(r[1]) for r in rows}
