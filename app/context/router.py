"""HTTP routes of context assembly."""

import uuid
from typing import Annotated

from fastapi import APIRouter, Query, Response

from app.context import service
from app.context.engine import Engine
from app.context.followups import feedback, refresh
from app.context.followups.schemas import (
    ContextExpandRequest,
    ContextFeedback,
    ContextFeedbackResponse,
    ContextRefreshRequest,
    ContextRefreshResponse,
)
from app.context.schemas import ContextBuildList, ContextBuildRequest, ContextBuildResponse
from app.core.bodies import JsonBodyRoute
from app.core.cursor import ID_CURSOR_PATTERN
from app.core.db import DbSession
from app.core.idempotency import Idempotent
from app.core.openapi import AUTHENTICATED, WITH_BODY, problems
from app.memories.dependencies import MemoryCtx
from app.memories.schemas import MemoryRead
from app.tenants.dependencies import CurrentTenant

router = APIRouter(
    prefix="/context",
    tags=["context"],
    route_class=JsonBodyRoute,
    # Each route names an agent, a context or a memory that may not exist, in its body or path.
    responses=problems(*AUTHENTICATED, 404),
)

# Builds listed at most in one answer.
MAX_LISTED = 100
AGENT_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"


# 409: the agent's window defaults leave a build with a session no room (`history/window.py`).
@router.post("/build", response_model=ContextBuildResponse, responses=problems(409, *WITH_BODY))
async def build_context(
    body: ContextBuildRequest,
    session: DbSession,
    tenant: CurrentTenant,
    engine: Engine,
    idempotent: Idempotent,
) -> Response:
    """Build the context for an input: the text for the system prompt and its manifest."""
    # The JSON the build stored, sent as it is: FastAPI would validate and serialize it again.
    return await idempotent.once_serialized(
        tenant.id, lambda: service.build_context(session, engine, tenant, body)
    )


@router.post("/refresh", responses=problems(409, *WITH_BODY))
async def refresh_context(
    body: ContextRefreshRequest,
    session: DbSession,
    tenant: CurrentTenant,
    engine: Engine,
    idempotent: Idempotent,
) -> ContextRefreshResponse:
    """Check a context against the next input; rebuild it when the conversation moved on."""
    return await idempotent.once(
        tenant.id,
        ContextRefreshResponse,
        lambda: refresh.refresh_context(session, engine, tenant, body),
    )


# 409: an Idempotency-Key used for another request; 410: the memory was erased.
@router.post("/expand", responses=problems(409, 410, *WITH_BODY))
async def expand_memory(
    body: ContextExpandRequest,
    session: DbSession,
    tenant: CurrentTenant,
    ctx: MemoryCtx,
    idempotent: Idempotent,
) -> MemoryRead:
    """The full record of a memory in a context; counts as a reference to it."""
    return await idempotent.once(
        tenant.id, MemoryRead, lambda: feedback.expand_memory(session, ctx, tenant, body)
    )


@router.get("", responses=problems(422))
async def list_contexts(
    agent_id: Annotated[str, Query(pattern=AGENT_PATTERN, description="The agent's id.")],
    session: DbSession,
    tenant: CurrentTenant,
    limit: Annotated[int, Query(ge=1, le=MAX_LISTED)] = 20,
    cursor: Annotated[
        str | None,
        Query(
            pattern=ID_CURSOR_PATTERN,
            description="`next_cursor` of the page before: `<microseconds since 1970 UTC>_<id>`. "
            "Any such position lists the builds made before it.",
        ),
    ] = None,
) -> ContextBuildList:
    """An agent's latest builds, newest first: what was asked, frame, tokens and feedback."""
    return await service.list_builds(session, tenant, agent_id, limit, cursor)


# Only an id matches: GET /context/build is a wrong method (405), not a malformed context id.
@router.get("/{context_id:uuid}", response_model=ContextBuildResponse)
async def get_context(context_id: uuid.UUID, session: DbSession, tenant: CurrentTenant) -> Response:
    """A stored build, with its manifest: the JSON the build returned, sent as it was stored."""
    document = await service.read_build(session, tenant, context_id)
    return Response(content=document, media_type="application/json")


@router.post("/{context_id:uuid}/feedback", responses=problems(409, *WITH_BODY))
async def context_feedback(
    context_id: uuid.UUID,
    body: ContextFeedback,
    session: DbSession,
    tenant: CurrentTenant,
    engine: Engine,
    idempotent: Idempotent,
) -> ContextFeedbackResponse:
    """Tell which loaded memories the LLM used (ids, or its reply); feeds recall precision.

    409 when feedback was recorded already (unless this retries it with its Idempotency-Key),
    or an id is not one of the context's memories."""
    efforts = engine.settings.efforts  # a reply referring to an effort of the session
    return await idempotent.once(
        tenant.id,
        ContextFeedbackResponse,
        lambda: feedback.record_feedback(session, tenant, context_id, body, efforts),
    )
