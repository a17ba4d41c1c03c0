"""A durable job queue in PostgreSQL: enqueued with its row, claimed with SKIP LOCKED."""

import uuid
from collections.abc import Collection, Sequence
from datetime import datetime, timedelta

from sqlalchemy import String, case, column, delete, func, insert, select, text, update, values
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute, aliased
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import Exists

from app.core.job_models import NOTIFY_CHANNEL, ClaimedJob, Job, Task

# An agent's jobs: its memories', its sessions' and its own (`delete_for_agent`).
_AGENT_JOBS = (
    text("DELETE FROM job j USING memory m WHERE j.memory_id = m.id AND m.agent_id = :agent"),
    text(
        "DELETE FROM job j USING conversation_session s "
        "WHERE j.session_id = s.id AND s.agent_id = :agent"
    ),
    text("DELETE FROM job WHERE agent_id = :agent"),
)


def _now() -> ColumnElement[datetime]:
    """The database's clock as the statement runs: every worker reads the same clock, and
    `now()` would stay at the start of a long transaction."""
    return func.clock_timestamp()


def _takeable(lease: timedelta, *, include_backing_off: bool = False) -> ColumnElement[bool]:
    """A job a worker may take now: queued and due (with `include_backing_off`, queued at all),
    or running under a lease that ran out."""
    now = _now()
    queued = Job.state == "queued"
    return (queued if include_backing_off else queued & (Job.run_after <= now)) | (
        (Job.state == "running") & (Job.locked_at < now - lease)
    )


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

    async def due_tasks(self, tasks: Collection[str], lease: timedelta) -> set[str]:
        """Which of the tasks have a job to take now, in one read: a poll of an idle queue
        costs a statement, not a claim (a write transaction) per task."""
        names = values(column("task", String), name="task_name").data([(t,) for t in tasks])
        takeable = select(Job.id).where(Job.task == names.c.task, _takeable(lease)).exists()
        return set((await self.session.scalars(select(names.c.task).where(takeable))).all())

    async def claim(
        self,
        claim: str,
        task: str,
        limit: int,
        lease: timedelta,
        *,
        include_backing_off: bool = False,
    ) -> list[ClaimedJob]:
        """Take up to `limit` due jobs of a task, oldest first, and the jobs whose lease ran out,
        that nobody else holds; with `include_backing_off`, queued jobs whose retry is not due
        yet too. Times are the database's, so workers' clocks do not matter."""
        now = _now()
        due = (
            select(Job.id)
            .where(Job.task == task, _takeable(lease, include_backing_off=include_backing_off))
            .order_by(Job.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
            # Chosen once: as `IN (subquery)` the planner may run the subquery again for each
            # row it updates (a nested loop, on some statistics), each run skipping the rows
            # the last one locked, and a claim took more than `limit` jobs.
            .cte("due")
            .prefix_with("MATERIALIZED")
        )
        rows = await self.session.execute(
            update(Job)
            .where(Job.id == due.c.id)
            .values(
                state="running",
                attempts=Job.attempts + 1,
                locked_at=now,
                locked_by=claim,
                updated_at=now,
            )
            .returning(
                Job.id,
                Job.task,
                func.coalesce(Job.memory_id, Job.session_id, Job.agent_id).label("subject_id"),
                Job.attempts,
                Job.failures,
                Job.max_attempts,
            )
        )
        return [  # RETURNING comes in no particular order
            ClaimedJob(r.id, claim, r.task, r.subject_id, r.attempts, r.failures, r.max_attempts)
            for r in sorted(rows, key=lambda row: int(row.id))
        ]

    async def enqueue_for_session(
        self, session_id: uuid.UUID, task: Task, *, max_attempts: int
    ) -> None:
        """Queue the session's job of a task in the caller's transaction, unless one waits
        already (it will see this work too), and wake the workers on commit."""
        statement = (
            pg_insert(Job)
            .values(
                session_id=session_id,
                task=task,
                state="queued",
                attempts=0,
                max_attempts=max_attempts,
            )
            .on_conflict_do_nothing(
                index_elements=["session_id", "task"], index_where=text("state = 'queued'")
            )
        )
        await self.session.execute(statement)
        await self.session.execute(select(func.pg_notify(NOTIFY_CHANNEL, task)))

    async def renew(self, claim: str, job_ids: Sequence[int]) -> None:
        """Extend the lease on jobs a claim is still running."""
        await self.session.execute(
            update(Job)
            .where(Job.id.in_(job_ids), Job.locked_by == claim, Job.state == "running")
            .values(locked_at=_now())
        )

    async def complete(self, jobs: Sequence[ClaimedJob]) -> set[int]:
        """Mark jobs done, unless another claim has taken them over meanwhile; the ids of those
        still held (and now done). Write a job's results in the same transaction, and only for
        these: the row lock keeps a new claim out until it commits."""
        done: set[int] = set()
        now = _now()
        for claim in {job.claim for job in jobs}:
            rows = await self.session.scalars(
                update(Job)
                .where(
                    Job.id.in_([j.job_id for j in jobs if j.claim == claim]),
                    Job.locked_by == claim,
                    Job.state == "running",
                )
                .values(
                    state="done", finished_at=now, updated_at=now, locked_at=None, last_error=None
                )
                .returning(Job.id)
            )
            done.update(rows)
        return done

    async def retry_later(
        self, job: ClaimedJob, error: str, delay_seconds: float, *, own_fault: bool
    ) -> None:
        """Put a job back in the queue, due after `delay_seconds`, with the error it met;
        `own_fault` counts the error against the job (an outage does not)."""
        # At most one job of a session and task waits: beside another, which does this one's
        # work too, this one is done instead.
        other = aliased(Job)
        waits = (
            select(other.id)
            .where(
                (other.session_id == Job.session_id) | (other.agent_id == Job.agent_id),
                other.task == Job.task,
                other.state == "queued",
            )
            .exists()
        )
        await self._release(
            job,
            state=case((waits, "done"), else_="queued"),
            last_error=error[:2000],
            run_after=_now() + timedelta(seconds=delay_seconds),
            failures=Job.failures + 1 if own_fault else Job.failures,
        )

    async def fail(self, job: ClaimedJob, error: str) -> None:
        """Give up on a job for good; it stays visible with its error."""
        await self._release(
            job,
            state="failed",
            last_error=error[:2000],
            finished_at=_now(),
            failures=Job.failures + 1,
        )

    async def _release(self, job: ClaimedJob, **values: object) -> None:
        await self.session.execute(
            update(Job)
            .where(Job.id == job.job_id, Job.locked_by == job.claim, Job.state == "running")
            .values(locked_at=None, updated_at=_now(), **values)
        )

    async def holders_on(self, host_prefix: str) -> list[str]:
        """The claims, on one host, that hold running jobs."""
        rows = await self.session.scalars(
            select(Job.locked_by)
            .where(Job.state == "running", Job.locked_by.startswith(host_prefix, autoescape=True))
            .distinct()
        )
        return [holder for holder in rows if holder is not None]

    async def release_from(self, claims: Sequence[str]) -> int:
        """Queue again, due now, the running jobs of claims whose worker is gone; how many.

        A session's job is done instead and its session's job of that task queued (unless one
        waits): one does all of the session's pending work, and only one may wait."""
        gone = (Job.state == "running") & Job.locked_by.in_(claims)
        released = {"locked_by": None, "locked_at": None, "updated_at": _now()}
        sessions = await self.session.execute(
            update(Job)
            .where(gone, Job.session_id.is_not(None))
            .values(state="done", finished_at=_now(), **released)
            .returning(Job.session_id, Job.task, Job.max_attempts)
        )
        rows = sessions.all()
        again = {(r.session_id, r.task): r.max_attempts for r in rows}
        for (session_id, task), max_attempts in again.items():
            await self.enqueue_for_session(session_id, task, max_attempts=max_attempts)
        result = await self.session.execute(
            update(Job)
            .where(gone, Job.memory_id.is_not(None))
            .values(state="queued", run_after=_now(), **released)
        )
        count = int(result.rowcount)  # type: ignore[attr-defined]  # CursorResult of an UPDATE
        return count + len(rows)

    async def delete_for_agent(self, agent_id: uuid.UUID) -> None:
        """Drop an agent's jobs and its memories' and sessions' (its erasure would take them
        too). Before its rows, so the erasure locks jobs, then rows, as a worker finishing one
        of them does: it waits for that worker instead of deadlocking with it."""
        for statement in _AGENT_JOBS:
            await self.session.execute(statement, {"agent": agent_id})

    async def drop_queued(self, task: str) -> None:
        """Drop the queued jobs of a task no worker will run (a model no longer set)."""
        await self.session.execute(delete(Job).where(Job.task == task, Job.state == "queued"))

    async def delete_for_session(self, session_id: uuid.UUID) -> None:
        """Drop a session's jobs, before the session (`delete_for_agent` says why)."""
        await self.session.execute(delete(Job).where(Job.session_id == session_id))

    async def make_due_now(self, task: str) -> int:
        """Make every job of a task that waits out a backoff due now; how many."""
        result = await self.session.execute(
            update(Job)
            .where(Job.task == task, Job.state == "queued", Job.run_after > _now())
            .values(run_after=_now())
        )
        return int(result.rowcount)  # type: ignore[attr-defined]  # CursorResult of an UPDATE


def waiting(
    task: str, memory_id: ColumnElement[uuid.UUID] | InstrumentedAttribute[uuid.UUID]
) -> Exists:
    """Whether a job of `task` for that memory is queued or running (an EXISTS to filter by)."""
    return (
        select(Job.id)
        .where(Job.memory_id == memory_id, Job.task == task, Job.state.in_(("queued", "running")))
        .exists()
    )
