"""SQL of retention: what the rules read, cold storage, the changes' record, an agent's runs."""

import uuid
from collections.abc import Sequence

from sqlalchemy import Integer, and_, delete, exists, func, or_, select, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from app.agents.models import Agent
from app.core.job_models import NOTIFY_CHANNEL, Job
from app.memories.models import Memory, MemoryCold
from app.retention.models import RetentionChange, RetentionLimit
from app.retention.types import Held

TASK = "retention"
# Runs of one agent take this lock (with the agent's id) for their transaction: a second run
# waits for the first, then sees what it did.
_LOCK_SALT = "retention"


def _int_field(name: str) -> ColumnElement[int]:
    return func.coalesce(Memory.fields[name].astext.cast(Integer), 0)


class RetentionRepository:
    """All SQL of retention runs."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def lock_agent(self, agent_id: uuid.UUID) -> None:
        """Hold the agent's retention lock until the transaction ends."""
        await self.session.execute(
            text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"),
            {"key": f"{_LOCK_SALT}:{agent_id}"},
        )

    async def held(self, agent_id: uuid.UUID, encoding: str) -> list[Held]:
        """What the rules read of each of the agent's memories, oldest first."""
        counts = Memory.token_counts[encoding]
        pinned = (
            select(RetentionChange.id)
            .where(
                RetentionChange.memory_id == Memory.id,
                RetentionChange.rule == "forgotten",
                RetentionChange.restored_at.is_not(None),
            )
            .exists()
        )
        rows = await self.session.execute(
            select(
                Memory.id,
                Memory.kind,
                Memory.state,
                Memory.occurred_at,
                Memory.seq,
                Memory.last_referenced_at,
                Memory.reference_count,
                Memory.confidence,
                _int_field("activation_count"),
                _int_field("success_count"),
                Memory.fields["action"].astext,
                Memory.rank_factor,
                func.coalesce(counts["full"].astext.cast(Integer), 0),
                func.coalesce(counts["summary"].astext.cast(Integer), 0),
                pinned,
            )
            .where(Memory.agent_id == agent_id)
            .order_by(Memory.occurred_at, Memory.seq)
        )
        return [Held(*row) for row in rows]

    async def cold_ids(self, memory_ids: Sequence[uuid.UUID]) -> set[uuid.UUID]:
        """Those of the memories whose record is in cold storage already."""
        rows = await self.session.scalars(
            select(MemoryCold.memory_id).where(MemoryCold.memory_id.in_(memory_ids))
        )
        return set(rows)

    async def add(self, rows: Sequence[MemoryCold | RetentionChange]) -> None:
        self.session.add_all(rows)
        await self.session.flush()

    async def last_forgetting(self, memory_id: uuid.UUID) -> RetentionChange | None:
        """The memory's latest forgetting that was not undone, locked."""
        return await self.session.scalar(
            select(RetentionChange)
            .where(
                RetentionChange.memory_id == memory_id,
                RetentionChange.rule == "forgotten",
                RetentionChange.restored_at.is_(None),
            )
            .order_by(RetentionChange.id.desc())
            .limit(1)
            .with_for_update()
        )

    async def changes(
        self, agent_id: uuid.UUID, memory_id: uuid.UUID | None, before: int | None, limit: int
    ) -> list[RetentionChange]:
        """The agent's recorded changes, newest first, before an id."""
        query = select(RetentionChange).where(RetentionChange.agent_id == agent_id)
        if memory_id is not None:
            query = query.where(RetentionChange.memory_id == memory_id)
        if before is not None:
            query = query.where(RetentionChange.id < before)
        rows = await self.session.scalars(query.order_by(RetentionChange.id.desc()).limit(limit))
        return list(rows)

    async def flush(self) -> None:
        await self.session.flush()

    async def limits(self, agent_id: uuid.UUID) -> RetentionLimit | None:
        """The agent's own size limits, if it has any."""
        return await self.session.get(RetentionLimit, agent_id)

    async def set_limits(
        self, agent_id: uuid.UUID, max_memories: int | None, max_tokens: int | None
    ) -> RetentionLimit:
        """Replace the agent's own size limits (None: the setting's)."""
        values = {"max_active_memories": max_memories, "max_active_tokens": max_tokens}
        row = await self.session.scalar(
            pg_insert(RetentionLimit)
            .values(agent_id=agent_id, **values)
            .on_conflict_do_update(
                index_elements=["agent_id"], set_={**values, "updated_at": func.now()}
            )
            .returning(RetentionLimit)
            .execution_options(populate_existing=True)
        )
        assert row is not None  # an upsert returns its row
        return row


class RetentionJobs:
    """Queueing of agents' retention runs: at most one waits per agent."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def enqueue(self, agent_ids: Sequence[uuid.UUID], *, max_attempts: int) -> int:
        """Queue a run for each agent that has none waiting; how many were queued."""
        if not agent_ids:
            return 0
        rows = await self.session.scalars(
            pg_insert(Job)
            .values(
                [
                    {
                        "agent_id": agent_id,
                        "task": TASK,
                        "state": "queued",
                        "attempts": 0,
                        "max_attempts": max_attempts,
                    }
                    for agent_id in agent_ids
                ]
            )
            .on_conflict_do_nothing(
                index_elements=["agent_id", "task"], index_where=text("state = 'queued'")
            )
            .returning(Job.id)
        )
        queued = len(list(rows))
        if queued:
            await self.session.execute(select(func.pg_notify(NOTIFY_CHANNEL, TASK)))
        return queued

    async def prune(self, agent_id: uuid.UUID, keep_job_id: int) -> None:
        """Delete the agent's earlier finished runs (failed ones stay, for their errors): the
        queue holds one done run per agent, the one `due` measures the interval from."""
        await self.session.execute(
            delete(Job).where(
                Job.agent_id == agent_id,
                Job.task == TASK,
                Job.state == "done",
                Job.id != keep_job_id,
            )
        )

    async def due(self, interval_seconds: float) -> list[uuid.UUID]:
        """Agents with memories and no run queued, running, or queued within the interval."""
        recent = func.clock_timestamp() - func.make_interval(0, 0, 0, 0, 0, 0, interval_seconds)
        busy = exists().where(
            Job.agent_id == Agent.id,
            Job.task == TASK,
            or_(Job.state.in_(("queued", "running")), Job.created_at > recent),
        )
        has_memories = exists().where(Memory.agent_id == Agent.id)
        rows = await self.session.scalars(
            select(Agent.id).where(and_(has_memories, ~busy)).order_by(Agent.id)
        )
        return list(rows)
