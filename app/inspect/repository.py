"""SQL of the inspector: agents with their builds, a build's listing, the builds of a memory
(those that held it, and those that left it out)."""

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, Text, func, select
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.models import Agent
from app.context.models import ContextBuild
from app.memories.models import Memory


@dataclass(frozen=True)
class AgentRow:
    """An agent and how many builds it has, the latest when."""

    name: str
    builds: int
    last_build_at: datetime | None
    memories: int


@dataclass(frozen=True)
class BuildRow:
    """One line of a list of builds."""

    build_id: uuid.UUID
    agent_name: str
    input: str
    frame: str
    budget: int
    tokens_used: int
    relevance: float | None
    created_at: datetime


class InspectRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def agents(self, tenant_id: uuid.UUID) -> list[AgentRow]:
        """The tenant's agents by name, with their counts of builds and memories."""
        builds = (
            select(
                ContextBuild.agent_id,
                func.count().label("builds"),
                func.max(ContextBuild.created_at).label("last_build_at"),
            )
            .where(ContextBuild.tenant_id == tenant_id)
            .group_by(ContextBuild.agent_id)
            .subquery()
        )
        memories = (
            select(Memory.agent_id, func.count().label("memories"))
            .where(Memory.tenant_id == tenant_id)
            .group_by(Memory.agent_id)
            .subquery()
        )
        rows = await self.session.execute(
            select(
                Agent.name,
                func.coalesce(builds.c.builds, 0),
                builds.c.last_build_at,
                func.coalesce(memories.c.memories, 0),
            )
            .outerjoin(builds, builds.c.agent_id == Agent.id)
            .outerjoin(memories, memories.c.agent_id == Agent.id)
            .where(Agent.tenant_id == tenant_id)
            .order_by(Agent.name)
        )
        return [AgentRow(row[0], row[1], row[2], row[3]) for row in rows]

    async def recent_builds(self, agent_id: uuid.UUID, limit: int) -> list[BuildRow]:
        """An agent's latest builds, newest first."""
        return await self._builds(ContextBuild.agent_id == agent_id, limit)

    async def builds_with_memory(
        self, agent_id: uuid.UUID, memory_id: uuid.UUID, limit: int
    ) -> list[BuildRow]:
        """The agent's latest builds whose context held the memory, newest first."""
        return await self._builds(
            (ContextBuild.agent_id == agent_id) & ContextBuild.item_ids.contains([memory_id]), limit
        )

    async def builds_leaving_out(
        self, agent_id: uuid.UUID, memory_id: uuid.UUID, limit: int, scanned: int
    ) -> list[BuildRow]:
        """Of the agent's latest `scanned` builds, those whose manifest lists the memory among
        the candidates left out, newest first (their stored responses are read: bounded)."""
        recent = (
            select(ContextBuild.id)
            .where(ContextBuild.agent_id == agent_id)
            .order_by(ContextBuild.created_at.desc())
            .limit(scanned)
        )
        document = sql_cast(ContextBuild.response, Text)
        left_out = sql_cast(document, JSONB)["left_out"]
        return await self._builds(
            ContextBuild.id.in_(recent)
            & (func.strpos(document, str(memory_id)) > 0)  # read as JSON only where named
            & left_out.contains([{"memory_id": str(memory_id)}]),
            limit,
        )

    async def latest_session_build(
        self, agent_id: uuid.UUID, session_name: str
    ) -> tuple[uuid.UUID, str] | None:
        """The latest build made with the session: its id and stored response."""
        row = (
            await self.session.execute(
                select(ContextBuild.id, ContextBuild.response)
                .where(
                    ContextBuild.agent_id == agent_id,
                    ContextBuild.request["session_id"].astext == session_name,
                )
                .order_by(ContextBuild.created_at.desc())
                .limit(1)
            )
        ).first()
        return (row[0], row[1]) if row is not None else None

    async def _builds(self, where: ColumnElement[bool], limit: int) -> list[BuildRow]:
        rows = await self.session.execute(
            select(
                ContextBuild.id,
                Agent.name,
                ContextBuild.input,
                ContextBuild.frame,
                ContextBuild.budget,
                ContextBuild.tokens_used,
                ContextBuild.relevance,
                ContextBuild.created_at,
            )
            .join(Agent, Agent.id == ContextBuild.agent_id)
            .where(where)
            .order_by(ContextBuild.created_at.desc(), ContextBuild.id.desc())
            .limit(limit)
        )
        return [BuildRow(*row) for row in rows]

    async def micro_texts(
        self, tenant_id: uuid.UUID, memory_ids: list[uuid.UUID]
    ) -> dict[uuid.UUID, str]:
        """The one-line text of each of the tenant's memories (erased ones are absent)."""
        if not memory_ids:
            return {}
        rows = await self.session.execute(
            select(Memory.id, Memory.micro).where(
                Memory.tenant_id == tenant_id, Memory.id.in_(memory_ids)
            )
        )
        return {row[0]: row[1] for row in rows}

    async def superseded(self, memory_id: uuid.UUID) -> list[uuid.UUID]:
        """The facts this memory replaced."""
        return list(
            await self.session.scalars(
                select(Memory.id).where(Memory.superseded_by == memory_id).order_by(Memory.seq)
            )
        )
