"""Agents: identity, working memory and context defaults."""

import uuid
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.models import Agent
from app.agents.repository import AgentRepository
from app.agents.schemas import (
    AgentPage,
    AgentRead,
    AgentUpsert,
    ContextWindow,
    Identity,
    WorkingMemory,
)
from app.core.cursor import decode_position, encode_position
from app.core.errors import NotFound
from app.core.jobs import JobRepository
from app.core.replays import ReplayRepository
from app.tenants.models import Tenant


def to_read(agent: Agent) -> AgentRead:
    """The API view of an agent."""
    return AgentRead(
        agent_id=agent.name,
        identity=Identity.model_validate(agent.identity),
        working_memory=WorkingMemory.model_validate(agent.working_memory or {}),
        default_budget=agent.default_budget,
        model=agent.model,
        default_window=window_defaults(agent),
        created_at=agent.created_at,
        updated_at=agent.updated_at,
    )


def window_defaults(agent: Agent) -> ContextWindow | None:
    """The agent's window defaults, as they were given."""
    if agent.default_window is None:
        return None
    return ContextWindow.model_validate(agent.default_window)


async def get_agent(session: AsyncSession, tenant: Tenant, name: str) -> Agent:
    """An agent of the tenant, or 404."""
    agent = await AgentRepository(session).get(tenant.id, name)
    if agent is None:
        raise NotFound(f"Agent '{name}' does not exist. Create it with PUT /agents/{name}.")
    return agent


async def upsert_agent(
    session: AsyncSession, tenant: Tenant, name: str, body: AgentUpsert
) -> AgentRead:
    """Create the agent or replace its identity and defaults (working memory is kept). The
    window defaults are stored as given, field by field: whether they leave room depends on
    the settings and the request, so a build checks them (`context.window.resolve_window`)."""
    window = body.default_window
    values = {
        "identity": body.identity.model_dump(mode="json"),
        "default_budget": body.default_budget,
        "model": body.model,
        "default_window": window.model_dump(exclude_none=True) if window else None,
    }
    return to_read(await AgentRepository(session).upsert(tenant.id, name, values))


async def list_agents(
    session: AsyncSession, tenant: Tenant, *, cursor: str | None, limit: int
) -> AgentPage:
    """One page of the tenant's agents, newest first; a cursor keeps to the agents created
    before its position."""
    after = decode_position(cursor) if cursor else None
    rows = await AgentRepository(session).page(tenant.id, after=after, limit=limit + 1)
    page = rows[:limit]
    more = len(rows) > limit
    return AgentPage(
        items=[to_read(agent) for agent in page],
        next_cursor=encode_position(page[-1].created_at, page[-1].name) if more else None,
    )


class KeepsAgents(Protocol):
    """What a process keeps of agents between requests (the context engine's figures and
    censors): it must let go of an erased agent."""

    def forget_agent(self, agent_id: uuid.UUID) -> None: ...


async def erase_agent(session: AsyncSession, kept: KeepsAgents, tenant: Tenant, name: str) -> None:
    """Erase the agent and everything it owns, in this transaction: its memories (with their
    vectors, lifecycle logs and retention records), sessions (messages, summaries, efforts),
    stored builds, jobs and retention limits, and the stored responses of idempotent requests
    that show any of these."""
    agent = await get_agent(session, tenant, name)
    await JobRepository(session).delete_for_agent(agent.id)
    if not await AgentRepository(session).delete(agent.id):
        raise NotFound(f"Agent '{name}' does not exist.")  # erased by a concurrent request
    await ReplayRepository(session).forget_agent(tenant.id, agent.name)
    kept.forget_agent(agent.id)


async def read_agent(session: AsyncSession, tenant: Tenant, name: str) -> AgentRead:
    return to_read(await get_agent(session, tenant, name))


async def set_working_memory(
    session: AsyncSession, tenant: Tenant, name: str, body: WorkingMemory
) -> AgentRead:
    """Replace the agent's working memory."""
    agent = await get_agent(session, tenant, name)
    agent.working_memory = body.model_dump(mode="json")
    return to_read(await AgentRepository(session).save(agent))
