"""HTTP routes of an agent's frames (under /agents, beside the agent's other routes)."""

from fastapi import APIRouter

from app.agents.schemas import AgentName
from app.context.frames import service
from app.context.frames.schemas import FrameDefinition, FrameNameParam, FrameView
from app.core.bodies import JsonBodyRoute
from app.core.db import DbSession
from app.core.openapi import AUTHENTICATED, WITH_BODY, problems
from app.tenants.dependencies import CurrentTenant

router = APIRouter(
    prefix="/agents",
    tags=["agents"],
    route_class=JsonBodyRoute,
    responses=problems(*AUTHENTICATED, 422),  # an agent's id in the path
)


@router.get("/{agent_id}/frames", responses=problems(404))
async def list_frames(
    agent_id: AgentName, session: DbSession, tenant: CurrentTenant
) -> list[FrameView]:
    """The frames the agent's contexts choose from: built-in ones with its changes, and its own."""
    return await service.list_frames(session, tenant, agent_id)


@router.put("/{agent_id}/frames/{frame_name}", responses=problems(404, 409, *WITH_BODY))
async def put_frame(
    agent_id: AgentName,
    frame_name: FrameNameParam,
    body: FrameDefinition,
    session: DbSession,
    tenant: CurrentTenant,
) -> FrameView:
    """Add a frame for the agent, or override fields of a built-in one."""
    return await service.put_frame(session, tenant, agent_id, frame_name, body)


@router.delete("/{agent_id}/frames/{frame_name}", responses=problems(404, 409))
async def delete_frame(
    agent_id: AgentName, frame_name: FrameNameParam, session: DbSession, tenant: CurrentTenant
) -> list[FrameView]:
    """Remove the agent's own frame or its changes to a built-in one."""
    return await service.delete_frame(session, tenant, agent_id, frame_name)
