"""SQL of agents."""

import uuid
from collections.abc import Mapping
from datetime import datetime

from sqlalchemy import delete, func, select, tuple_
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.models import Agent


class AgentRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(
        self, tenant_id: uuid.UUID, name: str, *, for_update: bool = False
    ) -> Agent | None:
        query = select(Agent).where(Agent.tenant_id == tenant_id, Agent.name == name)
        if for_update:
            query = query.with_for_update()
        return await self.session.scalar(query)

    async def upsert(self, tenant_id: uuid.UUID, name: str, values: Mapping[str, object]) -> Agent:
        """Insert or update in one statement, so concurrent creations cannot collide."""
        agent_id = await self.session.scalar(
            insert(Agent)
            .values(id=uuid.uuid4(), tenant_id=tenant_id, name=name, working_memory={}, **values)
            .on_conflict_do_update(
                index_elements=["tenant_id", "name"], set_={**values, "updated_at": func.now()}
            )
            .returning(Agent.id)
        )
        agent = await self.session.get(Agent, agent_id, populate_existing=True)
        assert agent is not None
        return agent

    async def by_id(self, tenant_id: uuid.UUID, agent_id: uuid.UUID) -> Agent | None:
        return await self.session.scalar(
            select(Agent).where(Agent.tenant_id == tenant_id, Agent.id == agent_id)
        )

    async def page(
        self, tenant_id: uuid.UUID, *, after: tuple[datetime, str] | None, limit: int
    ) -> list[Agent]:
        """The tenant's agents, newest first, after a (created_at, name) cursor."""
        query = select(Agent).where(Agent.tenant_id == tenant_id)
        if after is not None:
            query = query.where(tuple_(Agent.created_at, Agent.name) < tuple_(*after))
        query = query.order_by(Agent.created_at.desc(), Agent.name.desc()).limit(limit)
        return list(await self.session.scalars(query))

    async def delete(self, agent_id: uuid.UUID) -> bool:
        """Delete the agent and, by the foreign keys' cascades, everything it owns; False
        when it was gone already (erased by a concurrent request)."""
        erased = await self.session.scalar(
            delete(Agent).where(Agent.id == agent_id).returning(Agent.id)
        )
        return erased is not None

    async def save(self, agent: Agent) -> Agent:
        await self.session.flush()
        await self.session.refresh(agent)
        return agent
