"""An agent's own size limits for coordinated forgetting, over the settings'."""

from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.service import get_agent
from app.core.config import RetentionSettings
from app.retention.models import RetentionLimit
from app.retention.repository import RetentionRepository
from app.retention.schemas import RetentionLimits, RetentionLimitsRead
from app.tenants.models import Tenant


def in_force(rules: RetentionSettings, own: RetentionLimit | None) -> RetentionSettings:
    """The settings with the agent's own limits where it has them."""
    if own is None:
        return rules
    changes = {
        name: value
        for name, value in (
            ("max_active_memories", own.max_active_memories),
            ("max_active_tokens", own.max_active_tokens),
        )
        if value is not None
    }
    return rules.model_copy(update=changes)


def _read(
    agent_name: str, rules: RetentionSettings, own: RetentionLimit | None
) -> RetentionLimitsRead:
    limits = in_force(rules, own)
    return RetentionLimitsRead(
        agent_id=agent_name,
        max_active_memories=limits.max_active_memories,
        max_active_tokens=limits.max_active_tokens,
        own=RetentionLimits(
            max_active_memories=own.max_active_memories if own else None,
            max_active_tokens=own.max_active_tokens if own else None,
        ),
    )


async def read_limits(
    session: AsyncSession, rules: RetentionSettings, tenant: Tenant, agent_name: str
) -> RetentionLimitsRead:
    """The limits in force for an agent of the tenant."""
    agent = await get_agent(session, tenant, agent_name)
    return _read(agent.name, rules, await RetentionRepository(session).limits(agent.id))


async def set_limits(
    session: AsyncSession,
    rules: RetentionSettings,
    tenant: Tenant,
    agent_name: str,
    body: RetentionLimits,
) -> RetentionLimitsRead:
    """Replace an agent's own limits; they apply from its next run."""
    agent = await get_agent(session, tenant, agent_name)
    own = await RetentionRepository(session).set_limits(
        agent.id, body.max_active_memories, body.max_active_tokens
    )
    return _read(agent.name, rules, own)
