"""A durable job queue in PostgreSQL: enqueued with its row, claimed with SKIP LOCKED."""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import (
    BigInteger,
    DateTime,
    ForeignKey,
    Identity,
    Index,
    Integer,
    String,
    Text,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base
from app.core.time import utcnow

Task = Literal["embed", "summarize"]
JobState = Literal["queued", "running", "done", "failed"]
NOTIFY_CHANNEL = "ce_jobs"


class Job(Base):
    """One unit of background work on one memory."""

    __tablename__ = "job"
    __table_args__ = (
        Index(
            "ix_job_claimable",
            "task",
            "id",
            postgresql_where=text("state IN ('queued', 'running')"),
        ),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    memory_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("memory.id", ondelete="CASCADE"), index=True
    )
    task: Mapped[str] = mapped_column(String(16))
    state: Mapped[str] = mapped_column(String(16), default="queued")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer)
    run_after: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    locked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    locked_by: Mapped[str | None] = mapped_column(String(100))
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


@dataclass(frozen=True)
class ClaimedJob:
    """A job this worker holds until it reports the outcome."""

    job_id: int
    worker_id: str
    task: Task
    memory_id: uuid.UUID
    attempts: int
    max_attempts: int


class JobRepository:
    """All SQL of the job table."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def enqueue(
        self, memory_ids: Sequence[uuid.UUID], task: Task, *, max_attempts: int
    ) -> None:
        """Queue one job per memory in the caller's transaction and wake the workers on commit."""
        if not memory_ids:
            return
        await self.session.execute(
            insert(Job),
            [
                {
                    "memory_id": m,
                    "task": task,
                    "state": "queued",
                    "attempts": 0,
                    "max_attempts": max_attempts,
                }
                for m in memory_ids
            ],
        )
        await self.session.execute(select(func.pg_notify(NOTIFY_CHANNEL, task)))

    async def claim(
        self, worker_id: str, task: str, limit: int, stale_after: timedelta
    ) -> list[ClaimedJob]:
        """Take up to `limit` due jobs of a task (and crashed workers' ones) nobody else holds."""
        now = utcnow()
        due = (
            select(Job.id)
            .where(
                Job.task == task,
                ((Job.state == "queued") & (Job.run_after <= now))
                | ((Job.state == "running") & (Job.locked_at < now - stale_after)),
            )
            .order_by(Job.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
            .scalar_subquery()
        )
        rows = await self.session.execute(
            update(Job)
            .where(Job.id.in_(due))
            .values(
                state="running",
                attempts=Job.attempts + 1,
                locked_at=now,
                locked_by=worker_id,
                updated_at=now,
            )
            .returning(Job.id, Job.task, Job.memory_id, Job.attempts, Job.max_attempts)
        )
        return [
            ClaimedJob(r.id, worker_id, r.task, r.memory_id, r.attempts, r.max_attempts)
            for r in rows
        ]

    async def complete(self, jobs: Sequence[ClaimedJob]) -> None:
        """Mark jobs done, unless another worker has taken them over meanwhile."""
        now = utcnow()
        for worker_id in {job.worker_id for job in jobs}:
            await self.session.execute(
                update(Job)
                .where(
                    Job.id.in_([j.job_id for j in jobs if j.worker_id == worker_id]),
                    Job.locked_by == worker_id,
                    Job.state == "running",
                )
                .values(
                    state="done", finished_at=now, updated_at=now, locked_at=None, last_error=None
                )
            )

    async def retry_or_fail(
        self, job: ClaimedJob, error: str, *, base_seconds: float, max_seconds: float
    ) -> JobState:
        """Schedule another attempt with exponential backoff, or fail the job for good."""
        now = utcnow()
        values: dict[str, object] = {
            "last_error": error[:2000],
            "updated_at": now,
            "locked_at": None,
        }
        if job.attempts >= job.max_attempts:
            state: JobState = "failed"
            values.update(state=state, finished_at=now)
        else:
            state = "queued"
            delay = min(base_seconds * 2 ** (job.attempts - 1), max_seconds)
            values.update(state=state, run_after=now + timedelta(seconds=delay))
        await self.session.execute(
            update(Job)
            .where(Job.id == job.job_id, Job.locked_by == job.worker_id, Job.state == "running")
            .values(values)
        )
        return state

    async def for_memories(self, memory_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, list[Job]]:
        """The jobs of some memories, oldest first."""
        rows = await self.session.scalars(
            select(Job).where(Job.memory_id.in_(memory_ids)).order_by(Job.id)
        )
        jobs: dict[uuid.UUID, list[Job]] = {m: [] for m in memory_ids}
        for job in rows:
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
