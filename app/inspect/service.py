"""The inspector's reads: a tenant's agents, an agent's builds and sessions, one build, one
memory, one session."""

import uuid
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.service import get_agent
from app.context.repository import ContextRepository
from app.context.schemas import ContextBuildResponse
from app.core.config import Settings
from app.core.errors import NotFound
from app.efforts import service as efforts
from app.inspect import views
from app.inspect.errors import PageNotFound
from app.inspect.repository import AgentRow, BuildRow, InspectRepository
from app.inspect.session_page import SessionPage, session_view
from app.memories import service as memories
from app.memories.repository import MemoryFilter
from app.memories.schemas import MemoryRead
from app.memories.service import MemoryContext
from app.retention import history
from app.sessions import service as sessions
from app.sessions.schemas import SessionRead
from app.tenants.models import Tenant

RECENT_BUILDS = 50
RECENT_MEMORIES = 20
BUILDS_OF_MEMORY = 20
# The latest builds of its agent a memory page reads for those that left the memory out.
BUILDS_SCANNED = 500
RETENTION_CHANGES = 50  # and as many lifecycle actions
RECENT_SESSIONS = 20
SESSION_MESSAGES = 200  # the latest messages a session page lists


@dataclass(frozen=True)
class AgentPage:
    """An agent's latest builds, memories and sessions."""

    name: str
    builds: list[BuildRow]
    memories: list[MemoryRead]
    sessions: list[SessionRead]


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
    recent = await sessions.list_sessions(
        session, tenant, agent.name, cursor=None, limit=RECENT_SESSIONS
    )
    return AgentPage(agent.name, builds, page.items, recent.items)


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
    events = await history.events_of(session, tenant, memory, RETENTION_CHANGES)
    repository = InspectRepository(session)
    builds = await repository.builds_with_memory(agent.id, memory_id, BUILDS_OF_MEMORY)
    left_out_of = await repository.builds_leaving_out(
        agent.id, memory_id, BUILDS_OF_MEMORY, BUILDS_SCANNED
    )
    supersedes = await repository.superseded(memory_id)
    return views.memory_page(memory, events, supersedes, builds, left_out_of)


async def session_page(
    session: AsyncSession, tenant: Tenant, agent_name: str, session_name: str, settings: Settings
) -> SessionPage:
    """A session: its counts, its latest messages with what the latest build did with each,
    and its efforts."""
    try:
        read = await sessions.read_session(session, tenant, agent_name, session_name)
        start = max(0, read.messages - SESSION_MESSAGES)
        listed = await sessions.list_messages(
            session, tenant, agent_name, session_name,
            cursor=start - 1 if start else None, limit=SESSION_MESSAGES,
        )  # fmt: skip
        where = efforts.Where(agent_name, session_name)
        found = await efforts.list_efforts(session, tenant, where, settings.context.efforts)
        agent = await get_agent(session, tenant, agent_name)
    except NotFound as exc:
        raise PageNotFound(str(exc)) from exc
    latest = await InspectRepository(session).latest_session_build(agent.id, session_name)
    history = None
    if latest is not None:
        history = ContextBuildResponse.model_validate_json(latest[1]).history
    build_id = str(latest[0]) if latest is not None else None
    return session_view(read, listed.items, found.items, build_id, history)
