"""The inspector's reads: a tenant's agents, an agent's builds, one build, one memory."""

import uuid
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.service import get_agent
from app.context.repository import ContextRepository
from app.context.schemas import ContextBuildResponse
from app.core.errors import NotFound
from app.inspect import views
from app.inspect.errors import PageNotFound
from app.inspect.repository import AgentRow, BuildRow, InspectRepository
from app.memories import service as memories
from app.memories.repository import MemoryFilter
from app.memories.schemas import MemoryRead
from app.memories.service import MemoryContext
from app.memories.transition_repository import TransitionRepository
from app.retention import service as retention
from app.tenants.models import Tenant

RECENT_BUILDS = 50
RECENT_MEMORIES = 20
BUILDS_OF_MEMORY = 20
# The latest builds of its agent a memory page reads for those that left the memory out.
BUILDS_SCANNED = 500
RETENTION_CHANGES = 50  # and as many lifecycle actions


@dataclass(frozen=True)
class AgentPage:
    """An agent's latest builds and memories."""

    name: str
    builds: list[BuildRow]
    memories: list[MemoryRead]


async def list_agents(session: AsyncSession, tenant: Tenant) -> list[AgentRow]:
    """The tenant's agents with their counts of builds and memories."""
    return await InspectRepository(session).agents(tenant.id)


async def agent_page(
    session: AsyncSession, ctx: MemoryContext, tenant: Tenant, name: str
) -> AgentPage:
    """An agent's latest builds and memories, newest first."""
    try:
        agent = await get_agent(session, tenant, name)
    except NotFound as exc:
        raise PageNotFound(str(exc)) from exc
    builds = await InspectRepository(session).recent_builds(agent.id, RECENT_BUILDS)
    page = await memories.list_memories(
        session, ctx, tenant, agent.name, MemoryFilter(), cursor=None, limit=RECENT_MEMORIES
    )
    return AgentPage(agent.name, builds, page.items)


async def build_page(session: AsyncSession, tenant: Tenant, build_id: uuid.UUID) -> views.BuildPage:
    """A stored build as it was returned, with the one-line text of each memory it names."""
    stored = await ContextRepository(session).get_build(tenant.id, build_id)
    if stored is None:
        raise PageNotFound(f"Context {build_id} does not exist.")
    build = ContextBuildResponse.model_validate_json(stored.response)
    texts = await InspectRepository(session).micro_texts(tenant.id, views.memory_ids(build))
    return views.build_page(build, stored.input, texts, stored.feedback)


async def memory_page(
    session: AsyncSession, ctx: MemoryContext, tenant: Tenant, memory_id: uuid.UUID
) -> views.MemoryPage:
    """A memory's record, what retention changed in it, the facts it replaced and the latest
    builds that held it."""
    try:
        memory = await memories.read_memory(session, ctx, tenant, memory_id)
        agent = await get_agent(session, tenant, memory.agent_id)
    except NotFound as exc:
        raise PageNotFound(str(exc)) from exc
    changes = await retention.list_changes(
        session, tenant, agent.name, memory_id, None, RETENTION_CHANGES
    )
    repository = InspectRepository(session)
    builds = await repository.builds_with_memory(agent.id, memory_id, BUILDS_OF_MEMORY)
    left_out_of = await repository.builds_leaving_out(
        agent.id, memory_id, BUILDS_OF_MEMORY, BUILDS_SCANNED
    )
    supersedes = await repository.superseded(memory_id)
    transitions = await TransitionRepository(session).of(memory_id, RETENTION_CHANGES)
    return views.memory_page(memory, changes.items, transitions, supersedes, builds, left_out_of)
