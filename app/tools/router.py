"""HTTP routes of the tools an LLM calls: their definitions, and one call run."""

from typing import Annotated

from fastapi import APIRouter, Body, Query

from app.agents.schemas import AgentName
from app.context.engine import Engine
from app.context.types import FlexibleKind
from app.core.bodies import JsonBodyRoute
from app.core.db import DbSession
from app.core.fields import QUERY_TEXT_PATTERN, QUERY_WORDS_PATTERN
from app.core.idempotency import Idempotent
from app.core.openapi import AUTHENTICATED, WITH_BODY, problems
from app.deps import SettingsDep
from app.tenants.dependencies import CurrentTenant
from app.tools import service
from app.tools.examples import CALL_EXAMPLES
from app.tools.memory_search import MemorySearchResponse, search_memories
from app.tools.schemas import ToolCallRequest, ToolDefinition, ToolName, ToolResult

router = APIRouter(
    prefix="/agents/{agent_id}/tools",
    tags=["tools"],
    route_class=JsonBodyRoute,
    responses=problems(*AUTHENTICATED, 404, 422),  # each route names an agent
)
# The search of the search_memory tool, as data: beside the memories' own routes.
search_router = APIRouter(
    prefix="/agents/{agent_id}/memories",
    tags=["memories"],
    responses=problems(*AUTHENTICATED, 404, 422),
)
# Memories one search answers at most.
MAX_FOUND = 50


@router.get("")
async def list_tools(
    agent_id: AgentName, session: DbSession, tenant: CurrentTenant
) -> list[ToolDefinition]:
    """The tools the agent's LLM can call, as OpenAI function definitions: pass them as `tools`."""
    return await service.list_tools(session, tenant, agent_id)


# 409: an Idempotency-Key used for another request, or what the call writes (an effort) refers
# to a session erased while it ran.
@router.post("/{name}", responses=problems(409, *WITH_BODY))
async def call_tool(
    agent_id: AgentName,
    name: ToolName,
    body: Annotated[ToolCallRequest, Body(openapi_examples=CALL_EXAMPLES)],
    session: DbSession,
    tenant: CurrentTenant,
    engine: Engine,
    settings: SettingsDep,
    idempotent: Idempotent,
) -> ToolResult:
    """Run one tool call of the model; the result is the text to hand back to it."""
    return await idempotent.once(
        tenant.id,
        ToolResult,
        lambda: service.call_tool(session, engine, settings.tools, tenant, agent_id, name, body),
    )


@search_router.get("/search")
async def search_agent_memories(
    agent_id: AgentName,
    session: DbSession,
    tenant: CurrentTenant,
    engine: Engine,
    q: Annotated[
        str,
        Query(
            min_length=1,
            max_length=2000,
            pattern=QUERY_TEXT_PATTERN,
            # The schema says what the service checks (with a message that says why): not
            # spaces alone, as str.strip() counts them.
            json_schema_extra={"pattern": QUERY_WORDS_PATTERN},
            description="What to look for: a topic, a question, names or keywords.",
        ),
    ],
    kind: Annotated[list[FlexibleKind], Query()] = [],  # noqa: B006 - FastAPI copies defaults
    limit: Annotated[int, Query(ge=1, le=MAX_FOUND)] = 10,
) -> MemorySearchResponse:
    """The agent's memories that `q` finds by meaning and by words, best first, ranked and
    gated as a build ranks and gates them, with their scores (nothing is stored)."""
    return await search_memories(session, engine, tenant, agent_id, q, kind, limit)
