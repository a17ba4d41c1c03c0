"""HTTP routes of the tools an LLM calls: their definitions, and one call run."""

from typing import Annotated

from fastapi import APIRouter, Body

from app.agents.schemas import AgentName
from app.context.dependencies import Engine
from app.core.bodies import JsonBodyRoute
from app.core.db import DbSession
from app.core.idempotency import Idempotent
from app.core.openapi import AUTHENTICATED, WITH_BODY, problems
from app.deps import SettingsDep
from app.tenants.dependencies import CurrentTenant
from app.tools import service
from app.tools.examples import CALL_EXAMPLES
from app.tools.schemas import ToolCallRequest, ToolDefinition, ToolName, ToolResult

router = APIRouter(
    prefix="/agents/{agent_id}/tools",
    tags=["tools"],
    route_class=JsonBodyRoute,
    responses=problems(*AUTHENTICATED, 404, 422),  # each route names an agent
)


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
