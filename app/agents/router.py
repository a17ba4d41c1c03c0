"""HTTP routes of agents."""

from fastapi import APIRouter

from app.agents import service
from app.agents.schemas import (
    AgentName,
    AgentRead,
    AgentUpsert,
    FrameDefinition,
    FrameNameParam,
    FrameView,
    WorkingMemory,
)
from app.core.bodies import JsonBodyRoute
from app.core.db import DbSession
from app.core.openapi import AUTHENTICATED, WITH_BODY, problems
from app.tenants.dependencies import CurrentTenant

router = APIRouter(
    prefix="/agents",
    tags=["agents"],
    route_class=JsonBodyRoute,
    responses=problems(*AUTHENTICATED, 422),  # every route has the agent in its path
)


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


@router.put("/{agent_id}/working-memory", responses=problems(404, *WITH_BODY))
async def put_working_memory(
    agent_id: AgentName, body: WorkingMemory, session: DbSession, tenant: CurrentTenant
) -> AgentRead:
    """Replace the agent's working memory: its current task and open threads."""
    return await service.set_working_memory(session, tenant, agent_id, body)


@router.get("/{agent_id}/frames", responses=problems(404))
async def list_frames(
    agent_id: AgentName, session: DbSession, tenant: CurrentTenant
) -> list[FrameView]:
    """The frames the agent's contexts choose from: built-in ones with its changes, and its own."""
    return await service.list_frames(session, tenant, agent_id)


@router.put("/{agent_id}/frames/{frame_name}", responses=problems(404, *WITH_BODY))
async def put_frame(
    agent_id: AgentName,
    frame_name: FrameNameParam,
    body: FrameDefinition,
    session: DbSession,
    tenant: CurrentTenant,
) -> FrameView:
    """Add a frame for the agent, or override fields of a built-in one."""
    return await service.put_frame(session, tenant, agent_id, frame_name, body)


@router.delete("/{agent_id}/frames/{frame_name}", responses=problems(404))
async def delete_frame(
    agent_id: AgentName, frame_name: FrameNameParam, session: DbSession, tenant: CurrentTenant
) -> list[FrameView]:
    """Remove the agent's own frame or its changes to a built-in one."""
    return await service.delete_frame(session, tenant, agent_id, frame_name)
