"""An agent's frames: the built-in ones with its changes, and its own."""

from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.models import Agent
from app.agents.repository import AgentRepository
from app.agents.service import get_agent
from app.context.frames.catalogue import BUILTIN_FRAMES
from app.context.frames.choice import effective_frames
from app.context.frames.schemas import FrameDefinition, FrameView
from app.core.errors import NotFound
from app.tenants.models import Tenant


def _frame_views(agent: Agent) -> list[FrameView]:
    frames = effective_frames(agent.frames)
    return [
        FrameView(
            name=frame.name,
            description=frame.description,
            questions=list(frame.questions),
            priorities=dict(frame.priorities),
            default_budget=frame.default_budget,
            examples=list(frame.examples),
            cues=list(frame.cues),
            recency=frame.recency,
            builtin=name in BUILTIN_FRAMES,
            customized=name in (agent.frames or {}),
        )
        for name, frame in sorted(frames.items())
    ]


async def list_frames(session: AsyncSession, tenant: Tenant, name: str) -> list[FrameView]:
    """The built-in frames with the agent's changes, and the agent's own frames."""
    return _frame_views(await get_agent(session, tenant, name))


async def put_frame(
    session: AsyncSession, tenant: Tenant, name: str, frame_name: str, body: FrameDefinition
) -> FrameView:
    """Add a frame to the agent, or change a built-in one for it."""
    agent = await get_agent(session, tenant, name)
    agent.frames = {
        **(agent.frames or {}),
        frame_name: body.model_dump(mode="json", exclude_none=True),
    }
    await AgentRepository(session).save(agent)
    return next(view for view in _frame_views(agent) if view.name == frame_name)


async def delete_frame(
    session: AsyncSession, tenant: Tenant, name: str, frame_name: str
) -> list[FrameView]:
    """Remove the agent's frame (a built-in one returns to its defaults)."""
    agent = await get_agent(session, tenant, name)
    if frame_name not in (agent.frames or {}):
        raise NotFound(f"Agent '{name}' has no frame '{frame_name}' of its own.")
    agent.frames = {k: v for k, v in agent.frames.items() if k != frame_name}
    await AgentRepository(session).save(agent)
    return _frame_views(agent)
