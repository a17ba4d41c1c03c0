"""HTTP routes of memories."""

import uuid
from typing import Annotated

from fastapi import APIRouter, Body, Query

from app.agents.schemas import AgentName
from app.core.bodies import JsonBodyRoute
from app.core.db import DbSession
from app.core.fields import QUERY_TEXT_PATTERN
from app.core.idempotency import Idempotent
from app.core.openapi import AUTHENTICATED, WITH_BODY, problems
from app.deps import SettingsDep
from app.memories import erasure, service
from app.memories.action_schemas import MemoryUpdate
from app.memories.cursor import CURSOR_PATTERN
from app.memories.dependencies import MemoryCtx, MetadataFilter, Peers
from app.memories.examples import CREATE_EXAMPLES, UPDATE_EXAMPLES
from app.memories.repository import MemoryFilter
from app.memories.schemas import (
    Kind,
    MemoryBatchCreate,
    MemoryBatchRead,
    MemoryCreate,
    MemoryPage,
    MemoryRead,
    State,
    WrittenMemory,
)
from app.tenants.dependencies import CurrentTenant

router = APIRouter(
    tags=["memories"],
    route_class=JsonBodyRoute,
    responses=problems(*AUTHENTICATED, 404, 422),  # each route names an agent or a memory
)
# A retried POST whose Idempotency-Key was used for another request answers 409; one whose
# memory was erased since, 410.
_WRITE = problems(409, 410, *WITH_BODY)


@router.post("/agents/{agent_id}/memories", status_code=201, responses=_WRITE)
async def create_memory(
    agent_id: AgentName,
    body: Annotated[MemoryCreate, Body(openapi_examples=CREATE_EXAMPLES)],
    session: DbSession,
    tenant: CurrentTenant,
    ctx: MemoryCtx,
    idempotent: Idempotent,
) -> WrittenMemory:
    """Write one memory; it is found by its words at once, by meaning once embedded. A fact
    that repeats an active fact confirms it instead (`written: confirmed_existing`)."""
    result = await idempotent.once(
        tenant.id,
        MemoryBatchRead,
        lambda: service.create_memories(session, ctx, tenant, agent_id, [body]),
    )
    return result.memories[0]


@router.post("/agents/{agent_id}/memories/batch", status_code=201, responses=_WRITE)
async def create_memory_batch(
    agent_id: AgentName,
    body: MemoryBatchCreate,
    session: DbSession,
    tenant: CurrentTenant,
    ctx: MemoryCtx,
    idempotent: Idempotent,
) -> MemoryBatchRead:
    """Write several memories at once: all are stored, or none."""
    return await idempotent.once(
        tenant.id,
        MemoryBatchRead,
        lambda: service.create_memories(session, ctx, tenant, agent_id, body.memories),
    )


@router.get("/agents/{agent_id}/memories")
async def list_memories(
    agent_id: AgentName,
    session: DbSession,
    tenant: CurrentTenant,
    ctx: MemoryCtx,
    settings: SettingsDep,
    metadata: MetadataFilter,
    kind: Annotated[list[Kind], Query()] = [],  # noqa: B006 - FastAPI copies query defaults
    state: Annotated[list[State], Query()] = [],  # noqa: B006
    q: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=500,
            pattern=QUERY_TEXT_PATTERN,
            description="Words to search for (web-search syntax); best matches first.",
        ),
    ] = None,
    cursor: Annotated[
        str | None,
        Query(
            pattern=CURSOR_PATTERN,
            description="`next_cursor` of the page before: `<microseconds since 1970 UTC>_<id>`. "
            "Any such position lists the memories written before it.",
        ),
    ] = None,
    limit: Annotated[int | None, Query(ge=1)] = None,
) -> MemoryPage:
    """List an agent's memories, newest first (or best match for `q`), with filters."""
    page_size = min(limit or settings.api.page_size_default, settings.api.page_size_max)
    where = MemoryFilter(kinds=kind, states=state, metadata=metadata, text=q)
    return await service.list_memories(
        session, ctx, tenant, agent_id, where, cursor=cursor, limit=page_size
    )


@router.get("/memories/{memory_id}", responses=problems(410))
async def get_memory(
    memory_id: uuid.UUID, session: DbSession, tenant: CurrentTenant, ctx: MemoryCtx
) -> MemoryRead:
    """Expand a memory: the full record, all three representations, state and provenance;
    410 once erased."""
    return await service.read_memory(session, ctx, tenant, memory_id)


@router.patch("/memories/{memory_id}", responses=problems(409, 410, *WITH_BODY))
async def update_memory(
    memory_id: uuid.UUID,
    body: Annotated[MemoryUpdate, Body(openapi_examples=UPDATE_EXAMPLES)],
    session: DbSession,
    tenant: CurrentTenant,
    ctx: MemoryCtx,
) -> MemoryRead:
    """Move a memory through its lifecycle; 409 lists the actions it takes now."""
    return await service.update_memory(session, ctx, tenant, memory_id, body)


@router.delete("/memories/{memory_id}", status_code=204, responses=problems(409, 410))
async def delete_memory(
    memory_id: uuid.UUID,
    session: DbSession,
    tenant: CurrentTenant,
    peers: Peers,
    erase: Annotated[
        bool,
        Query(
            description="Erase a decision (decisions are otherwise permanent: 409 without "
            "it). Other kinds are erased either way."
        ),
    ] = False,
) -> None:
    """Erase a memory for good: its text leaves stored builds, a tombstone keeps its id, kind
    and time (reading it then answers 410). PATCH retires, invalidates or archives instead."""
    await erasure.delete_memory(session, peers, tenant, memory_id, erase=erase)
