"""HTTP routes of retention: run it for an agent, list what it changed, restore a memory; a
memory's history (its lifecycle actions and retention's changes)."""

import uuid
from typing import Annotated

from fastapi import APIRouter, Body, Query

from app.agents.schemas import AgentName
from app.core.bodies import JsonBodyRoute
from app.core.db import DbSession
from app.core.idempotency import Idempotent
from app.core.openapi import AUTHENTICATED, WITH_BODY, problems
from app.deps import ProvidersDep, SettingsDep
from app.memories.dependencies import MemoryCtx
from app.retention import limits, service
from app.retention.history import MemoryHistory, memory_history
from app.retention.schemas import (
    RUN_EXAMPLES,
    MemoryRestored,
    RetentionChangePage,
    RetentionLimits,
    RetentionLimitsRead,
    RetentionRun,
    RetentionRunRead,
)
from app.tenants.dependencies import CurrentTenant

router = APIRouter(
    tags=["retention"],
    route_class=JsonBodyRoute,
    responses=problems(*AUTHENTICATED, 404, 422),  # each route names an agent or a memory
)


# 409: an Idempotency-Key used for another request, or the agent or a memory erased while the
# request ran.
@router.post("/agents/{agent_id}/retention/run", responses=problems(409, *WITH_BODY))
async def run_retention(
    agent_id: AgentName,
    session: DbSession,
    tenant: CurrentTenant,
    providers: ProvidersDep,
    settings: SettingsDep,
    idempotent: Idempotent,
    body: Annotated[RetentionRun | None, Body(openapi_examples=RUN_EXAMPLES)] = None,
) -> RetentionRunRead:
    """Apply the lifecycles by age and use and coordinated forgetting now (or as of `now`);
    answers what changed, per memory, with the reason (`dry_run`: what would)."""
    run = body or RetentionRun()
    return await idempotent.once(
        tenant.id,
        RetentionRunRead,
        lambda: service.run(session, providers, settings.retention, tenant, agent_id, run),
    )


@router.get("/agents/{agent_id}/retention/changes")
async def list_retention_changes(
    agent_id: AgentName,
    session: DbSession,
    tenant: CurrentTenant,
    settings: SettingsDep,
    memory_id: uuid.UUID | None = None,
    cursor: Annotated[int | None, Query(ge=1, le=2**63 - 1)] = None,
    limit: Annotated[int | None, Query(ge=1)] = None,
) -> RetentionChangePage:
    """The changes retention made to the agent's memories and why, newest first."""
    page_size = min(limit or settings.api.page_size_default, settings.api.page_size_max)
    return await service.list_changes(session, tenant, agent_id, memory_id, cursor, page_size)


@router.post("/memories/{memory_id}/restore", responses=problems(409, 410))
async def restore_memory(
    memory_id: uuid.UUID, session: DbSession, tenant: CurrentTenant, idempotent: Idempotent
) -> MemoryRestored:
    """Undo coordinated forgetting: the memory returns to the state it was forgotten from and
    is not forgotten again; 409 when it is not forgotten."""
    return await idempotent.once(
        tenant.id, MemoryRestored, lambda: service.restore(session, tenant, memory_id)
    )


@router.get("/agents/{agent_id}/retention/limits")
async def get_retention_limits(
    agent_id: AgentName, session: DbSession, tenant: CurrentTenant, settings: SettingsDep
) -> RetentionLimitsRead:
    """The size limits coordinated forgetting keeps the agent under, and which are its own."""
    return await limits.read_limits(session, settings.retention, tenant, agent_id)


@router.put("/agents/{agent_id}/retention/limits", responses=problems(409, *WITH_BODY))
async def put_retention_limits(
    agent_id: AgentName,
    body: RetentionLimits,
    session: DbSession,
    tenant: CurrentTenant,
    settings: SettingsDep,
) -> RetentionLimitsRead:
    """Give the agent its own size limits (null: the setting's); they apply from its next run."""
    return await limits.set_limits(session, settings.retention, tenant, agent_id, body)


@router.get("/memories/{memory_id}/history", responses=problems(410))
async def get_memory_history(
    memory_id: uuid.UUID, session: DbSession, tenant: CurrentTenant, ctx: MemoryCtx
) -> MemoryHistory:
    """A memory's history, oldest first: written, embedded, each lifecycle action (with the
    outcome it recorded or amended) and each change retention made (with its reason, and when
    it was undone); 410 once erased."""
    return await memory_history(session, ctx, tenant, memory_id)
