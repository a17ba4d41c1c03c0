"""Agents: identity, working memory and context defaults."""

from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.models import Agent
from app.agents.repository import AgentRepository
from app.agents.schemas import AgentRead, AgentUpsert, Identity, WorkingMemory
from app.core.errors import NotFound
from app.tenants.models import Tenant


def to_read(agent: Agent) -> AgentRead:
    """The API view of an agent."""
    return AgentRead(
        agent_id=agent.name,
        identity=Identity.model_validate(agent.identity),
        working_memory=WorkingMemory.model_validate(agent.working_memory or {}),
        default_budget=agent.default_budget,
        model=agent.model,
        created_at=agent.created_at,
        updated_at=agent.updated_at,
    )


async def get_agent(session: AsyncSession, tenant: Tenant, name: str) -> Agent:
    """An agent of the tenant, or 404."""
    agent = await AgentRepository(session).get(tenant.id, name)
    if agent is None:
        raise NotFound(f"Agent '{name}' does not exist. Create it with PUT /agents/{name}.")
    return agent


async def upsert_agent(
    session: AsyncSession, tenant: Tenant, name: str, body: AgentUpsert
) -> AgentRead:
    """Create the agent or replace its identity and defaults (working memory is kept)."""
    values = {
        "identity": body.identity.model_dump(mode="json"),
        "default_budget": body.default_budget,
        "model": body.model,
    }
    return to_read(await AgentRepository(session).upsert(tenant.id, name, values))


async def read_agent(session: AsyncSession, tenant: Tenant, name: str) -> AgentRead:
    return to_read(await get_agent(session, tenant, name))


async def set_working_memory(
    session: AsyncSession, tenant: Tenant, name: str, body: WorkingMemory
) -> AgentRead:
    """Replace the agent's working memory."""
    agent = await get_agent(session, tenant, name)
    agent.working_memory = body.model_dump(mode="json")
    return to_read(await AgentRepository(session).save(agent))
