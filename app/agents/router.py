"""HTTP routes of agents."""

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request

from app.agents import service
from app.agents.schemas import (
    AGENT_CURSOR_PATTERN,
    AgentName,
    AgentPage,
    AgentRead,
    AgentUpsert,
    WorkingMemory,
)
from app.core.bodies import JsonBodyRoute
from app.core.db import DbSession
from app.core.openapi import AUTHENTICATED, WITH_BODY, problems
from app.deps import SettingsDep
from app.tenants.dependencies import CurrentTenant


async def _kept_of_agents(request: Request) -> service.KeepsAgents:
    kept: service.KeepsAgents = request.app.state.agents_kept
    return kept


# What the process keeps of agents (the context engine, handed in by `app.main.attach_peers`).
KeptOfAgents = Annotated[service.KeepsAgents, Depends(_kept_of_agents)]

router = APIRouter(
    prefix="/agents",
    tags=["agents"],
    route_class=JsonBodyRoute,
    responses=problems(*AUTHENTICATED, 422),  # an agent's id in the path, or a list's cursor
)


@router.get("")
async def list_agents(
    session: DbSession,
    tenant: CurrentTenant,
    settings: SettingsDep,
    cursor: Annotated[
        str | None,
        Query(
            pattern=AGENT_CURSOR_PATTERN,
            description="`next_cursor` of the page before: `<microseconds since 1970 UTC>_"
            "<agent_id>`. Any such position lists the agents created before it.",
        ),
    ] = None,
    limit: Annotated[int | None, Query(ge=1)] = None,
) -> AgentPage:
    """List the tenant's agents, newest first."""
    page_size = min(limit or settings.api.page_size_default, settings.api.page_size_max)
    return await service.list_agents(session, tenant, cursor=cursor, limit=page_size)


@router.put("/{agent_id}", responses=problems(*WITH_BODY))
async def put_agent(
    agent_id: AgentName, body: AgentUpsert, session: DbSession, tenant: CurrentTenant
) -> AgentRead:
    """Create an agent or replace its identity, default budget and target model."""
    return await service.upsert_agent(session, tenant, agent_id, body)


@router.get("/{agent_id}", responses=problems(404))
async def get_agent(agent_id: AgentName, session: DbSession, tenant: CurrentTenant) -> AgentRead:
    """Read an agent."""
    return await service.read_agent(session, tenant, agent_id)


@router.delete("/{agent_id}", status_code=204, responses=problems(404))
async def delete_agent(
    agent_id: AgentName, session: DbSession, tenant: CurrentTenant, kept: KeptOfAgents
) -> None:
    """Erase the agent and everything it owns: memories of every kind, sessions with their
    messages, summaries and efforts, stored builds, jobs, retention records and limits, and
    the stored responses of idempotent requests that show them. One transaction: all of it
    goes, or nothing. The id can then be used for a new agent, which starts empty."""
    await service.erase_agent(session, kept, tenant, agent_id)


# 409 from a route that changes the agent: it was erased while the request ran.
@router.put("/{agent_id}/working-memory", responses=problems(404, 409, *WITH_BODY))
async def put_working_memory(
    agent_id: AgentName, body: WorkingMemory, session: DbSession, tenant: CurrentTenant
) -> AgentRead:
    """Replace the agent's working memory: its current task and open threads."""
    return await service.set_working_memory(session, tenant, agent_id, body)
