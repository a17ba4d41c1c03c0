"""HTTP routes of agents."""

from fastapi import APIRouter

from app.agents import service
from app.agents.schemas import AgentName, AgentRead, AgentUpsert, WorkingMemory
from app.core.db import DbSession
from app.tenants.dependencies import CurrentTenant

router = APIRouter(prefix="/agents", tags=["agents"])


@router.put("/{agent_id}")
async def put_agent(
    agent_id: AgentName, body: AgentUpsert, session: DbSession, tenant: CurrentTenant
) -> AgentRead:
    """Create an agent or replace its identity, default budget and target model."""
    return await service.upsert_agent(session, tenant, agent_id, body)


@router.get("/{agent_id}")
async def get_agent(agent_id: AgentName, session: DbSession, tenant: CurrentTenant) -> AgentRead:
    """Read an agent."""
    return await service.read_agent(session, tenant, agent_id)


@router.put("/{agent_id}/working-memory")
async def put_working_memory(
    agent_id: AgentName, body: WorkingMemory, session: DbSession, tenant: CurrentTenant
) -> AgentRead:
    """Replace the agent's working memory: its current task and open threads."""
    return await service.set_working_memory(session, tenant, agent_id, body)
