"""HTTP routes of efforts: open, conclude, expand, list, search and read one."""

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Query

from app.agents.schemas import AgentName
from app.core.bodies import JsonBodyRoute
from app.core.db import DbSession
from app.core.fields import QUERY_TEXT_PATTERN
from app.core.idempotency import Idempotent
from app.core.openapi import AUTHENTICATED, WITH_BODY, problems
from app.deps import ProvidersDep, SettingsDep
from app.efforts import service
from app.efforts.examples import OPEN_EXAMPLES
from app.efforts.schemas import (
    EffortCreate,
    EffortExpanded,
    EffortList,
    EffortName,
    EffortRead,
    EffortSearchResult,
)
from app.efforts.service import Where
from app.sessions.schemas import SessionName
from app.tenants.dependencies import CurrentTenant


async def _where(agent_id: AgentName, session_id: SessionName) -> Where:
    return Where(agent_id, session_id)


# The agent's and session's names of the path.
SessionAt = Annotated[Where, Depends(_where)]
router = APIRouter(
    prefix="/agents/{agent_id}/sessions/{session_id}/efforts",
    tags=["efforts"],
    route_class=JsonBodyRoute,
    responses=problems(*AUTHENTICATED, 404, 422),
)


@router.post("", status_code=201, responses=problems(409, *WITH_BODY))
async def open_effort(
    where: SessionAt,
    body: Annotated[EffortCreate, Body(openapi_examples=OPEN_EXAMPLES)],
    session: DbSession,
    tenant: CurrentTenant,
    settings: SettingsDep,
    idempotent: Idempotent,
) -> EffortRead:
    """Open an effort: the messages appended to the session from now on belong to it (the
    session is created when new); 409 while another effort is open."""
    efforts = settings.context.efforts
    return await idempotent.once(
        tenant.id, EffortRead, lambda: service.open_effort(session, tenant, where, body, efforts)
    )


@router.get("")
async def list_efforts(
    where: SessionAt,
    session: DbSession,
    tenant: CurrentTenant,
    settings: SettingsDep,
) -> EffortList:
    """List a session's efforts with their state, summary, size and last reference."""
    return await service.list_efforts(session, tenant, where, settings.context.efforts)


@router.get("/search")
async def search_efforts(
    where: SessionAt,
    session: DbSession,
    tenant: CurrentTenant,
    settings: SettingsDep,
    providers: ProvidersDep,
    query: Annotated[
        str,
        Query(
            min_length=1,
            max_length=2000,
            pattern=QUERY_TEXT_PATTERN,
            description="Words of the topic, or an effort's id (`e_4`).",
        ),
    ],
    limit: Annotated[int, Query(ge=1, le=100)] = 5,
) -> EffortSearchResult:
    """Search the session's efforts, those evicted from working memory too, by the words of
    their title, goal and summary and by their messages' meaning; best first."""
    context = settings.context
    return await service.search_efforts(
        session, tenant, where, query, limit, context.efforts,
        providers.embedder, context.embedding_deadline_seconds,
    )  # fmt: skip


@router.get("/{effort_id}")
async def read_effort(
    where: SessionAt,
    effort_id: EffortName,
    session: DbSession,
    tenant: CurrentTenant,
    settings: SettingsDep,
) -> EffortRead:
    """Read one effort: its state, summary, size and the turn it was last referenced."""
    return await service.effort_status(session, tenant, where, effort_id, settings.context.efforts)


@router.post("/{effort_id}/conclude", responses=problems(409))
async def conclude_effort(
    where: SessionAt,
    effort_id: EffortName,
    session: DbSession,
    tenant: CurrentTenant,
    settings: SettingsDep,
    idempotent: Idempotent,
) -> EffortRead:
    """Conclude the open effort: builds show it by its summary, made in the background."""
    efforts, max_attempts = settings.context.efforts, settings.worker.max_attempts
    return await idempotent.once(
        tenant.id,
        EffortRead,
        lambda: service.conclude_effort(
            session, tenant, where, effort_id, efforts, max_attempts=max_attempts
        ),
    )


@router.post("/{effort_id}/expand", responses=problems(409))
async def expand_effort(
    where: SessionAt,
    effort_id: EffortName,
    session: DbSession,
    tenant: CurrentTenant,
    settings: SettingsDep,
    idempotent: Idempotent,
) -> EffortExpanded:
    """Load a concluded effort's raw messages back into working memory until it goes
    CE_CONTEXT__EFFORTS__EXPANDED_DECAY_TURNS turns without a reference; returns them."""
    efforts = settings.context.efforts
    return await idempotent.once(
        tenant.id,
        EffortExpanded,
        lambda: service.expand_effort(session, tenant, where, effort_id, efforts),
    )
