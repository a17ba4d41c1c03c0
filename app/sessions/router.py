"""HTTP routes of sessions: a conversation's messages, appended and listed in order."""

from typing import Annotated

from fastapi import APIRouter, Body, Query

from app.agents.schemas import AgentName
from app.core.bodies import JsonBodyRoute
from app.core.db import DbSession
from app.core.idempotency import Idempotent
from app.core.openapi import AUTHENTICATED, WITH_BODY, problems
from app.deps import ProvidersDep, SettingsDep
from app.sessions import service
from app.sessions.dependencies import Peers
from app.sessions.examples import APPEND_EXAMPLES
from app.sessions.input_vectors import InputEmbedders
from app.sessions.schemas import (
    SESSION_CURSOR_PATTERN,
    MessageBatchCreate,
    MessageBatchRead,
    MessagePage,
    SessionName,
    SessionPage,
    SessionRead,
)
from app.tenants.dependencies import CurrentTenant

router = APIRouter(
    prefix="/agents/{agent_id}/sessions",
    tags=["sessions"],
    route_class=JsonBodyRoute,
    responses=problems(*AUTHENTICATED, 404, 422),  # each route names an agent, most a session
)
_MAX_SEQ = 2**31 - 1  # seq is a PostgreSQL integer


@router.post("/{session_id}/messages", status_code=201, responses=problems(409, *WITH_BODY))
async def append_messages(
    agent_id: AgentName,
    session_id: SessionName,
    body: Annotated[MessageBatchCreate, Body(openapi_examples=APPEND_EXAMPLES)],
    session: DbSession,
    tenant: CurrentTenant,
    providers: ProvidersDep,
    settings: SettingsDep,
    idempotent: Idempotent,
    peers: Peers,
) -> MessageBatchRead:
    """Append messages to a session in order, numbered after its last one; the first message
    creates the session. All are stored, or none. The last user message is embedded before the
    answer: the build that takes it as its input finds its vector ready."""
    appended = await idempotent.once(
        tenant.id,
        MessageBatchRead,
        lambda: service.append_messages(
            session,
            tenant,
            agent_id,
            session_id,
            body.messages,
            tokens=providers.tokens,
            max_items=settings.api.batch_max_items,
            context=settings.context,
            max_attempts=settings.worker.max_attempts,
            peers=peers,
            embedders=InputEmbedders(
                providers.input_models, settings.context.embedding_deadline_seconds
            ),
        ),
    )
    return appended


@router.get("/{session_id}/messages")
async def list_messages(
    agent_id: AgentName,
    session_id: SessionName,
    session: DbSession,
    tenant: CurrentTenant,
    settings: SettingsDep,
    cursor: Annotated[
        int | None,
        Query(
            ge=0,
            le=_MAX_SEQ,
            description="`next_cursor` of the page before: the seq after which to continue.",
        ),
    ] = None,
    limit: Annotated[int | None, Query(ge=1)] = None,
) -> MessagePage:
    """List a session's messages in conversation order, oldest first."""
    page_size = min(limit or settings.api.page_size_default, settings.api.page_size_max)
    return await service.list_messages(
        session, tenant, agent_id, session_id, cursor=cursor, limit=page_size
    )


@router.get("/{session_id}")
async def get_session(
    agent_id: AgentName, session_id: SessionName, session: DbSession, tenant: CurrentTenant
) -> SessionRead:
    """Read a session: its message count, tokens, first and last message times, summaries."""
    return await service.read_session(session, tenant, agent_id, session_id)


@router.delete("/{session_id}", status_code=204)
async def delete_session(
    agent_id: AgentName,
    session_id: SessionName,
    session: DbSession,
    tenant: CurrentTenant,
    peers: Peers,
) -> None:
    """Erase a session: its messages, summaries, efforts and jobs, the builds made with it, and
    the stored responses of idempotent requests that show them. A message appended afterwards
    starts a new session of that id."""
    await service.erase_session(session, peers, tenant, agent_id, session_id)


@router.get("")
async def list_sessions(
    agent_id: AgentName,
    session: DbSession,
    tenant: CurrentTenant,
    settings: SettingsDep,
    cursor: Annotated[
        str | None,
        Query(
            pattern=SESSION_CURSOR_PATTERN,
            description="`next_cursor` of the page before: `<microseconds since 1970 UTC>_"
            "<session_id>`. Any such position lists the sessions created before it.",
        ),
    ] = None,
    limit: Annotated[int | None, Query(ge=1)] = None,
) -> SessionPage:
    """List an agent's sessions, newest first, each with its message count, tokens, first and
    last message times and summaries."""
    page_size = min(limit or settings.api.page_size_default, settings.api.page_size_max)
    return await service.list_sessions(session, tenant, agent_id, cursor=cursor, limit=page_size)
