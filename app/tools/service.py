"""Tools for the LLM: their definitions, and one call run as the model asked, its result held
to its tokens, what it shows counted as referenced."""

import asyncio
import json
import time
from collections.abc import Mapping, Sequence

from pydantic import JsonValue
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.service import get_agent
from app.context.engine import ContextEngine
from app.core.config import ToolSettings
from app.core.errors import DomainError, InvalidInput, NotFound
from app.core.fields import check_json
from app.core.metrics import TOOL_CALL_SECONDS, TOOL_CALLS
from app.tenants.models import Tenant
from app.tools import registry
from app.tools.fit import fit
from app.tools.schemas import (
    FunctionDefinition,
    ToolCallRequest,
    ToolDefinition,
    ToolMessage,
    ToolReference,
    ToolResult,
)
from app.tools.types import Reference, ToolCall


async def list_tools(
    session: AsyncSession, tenant: Tenant, agent_name: str
) -> list[ToolDefinition]:
    """Every tool's definition, for a chat completions request's `tools`."""
    await get_agent(session, tenant, agent_name)
    return [
        ToolDefinition(
            function=FunctionDefinition(
                name=tool.name, description=tool.description, parameters=tool.parameters()
            )
        )
        for tool in registry.TOOLS
    ]


async def count_references(call: ToolCall, references: Sequence[Reference]) -> None:
    """Count what a result shows as referenced, each kind by its `registry.REFERENCE_COUNTERS`
    entry (a kind without one, such as a message, has no counter)."""
    for kind, counter in registry.REFERENCE_COUNTERS.items():
        ids = [r.id for r in references if r.kind == kind]
        if ids:
            await counter(call, ids)


def _unknown(name: str) -> NotFound:
    return NotFound(
        f"There is no tool '{name}'; GET /agents/{{agent_id}}/tools lists them.",
        tools=[tool.name for tool in registry.TOOLS],
    )


def _not_json(detail: str) -> InvalidInput:
    return InvalidInput(f"arguments: {detail}", loc=["body", "arguments"])


def parse_arguments(arguments: str | Mapping[str, JsonValue]) -> Mapping[str, JsonValue]:
    """The arguments as an object: given as one, or JSON-encoded as the model writes them (an
    empty string is no arguments)."""
    if not isinstance(arguments, str):
        return arguments
    if not arguments.strip():
        return {}
    try:
        parsed = json.loads(arguments, parse_constant=_no_constant)
        check_json(parsed)
    except (ValueError, RecursionError) as exc:
        raise _not_json(f"not a JSON object: {exc}") from exc
    if not isinstance(parsed, dict):
        raise _not_json("must encode a JSON object")
    return parsed


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


async def call_tool(
    session: AsyncSession,
    engine: ContextEngine,
    settings: ToolSettings,
    tenant: Tenant,
    agent_name: str,
    name: str,
    request: ToolCallRequest,
) -> ToolResult:
    """Run the tool `name` with the model's arguments; 404 for an unknown tool or agent, 422
    naming the argument at fault."""
    tool = registry.find(name)
    label = tool.name if tool is not None else "unknown"
    started, outcome = time.perf_counter(), "error"
    try:
        if tool is None:
            raise _unknown(name)
        agent = await get_agent(session, tenant, agent_name)
        encoding = engine.providers.tokens.encoding_for_model(request.model or agent.model)
        tokens = engine.providers.tokens.bound(encoding)
        call = ToolCall(session, engine, tenant, agent, tokens, settings)
        output = await tool.run(call, parse_arguments(request.arguments))
        limit = request.max_tokens or settings.max_tokens
        fitted = await asyncio.to_thread(fit, tokens, output, limit)
        await count_references(call, fitted.references)
        outcome = "ok"
    except DomainError as exc:
        outcome = {404: "not_found", 422: "invalid"}.get(exc.status, "error")
        raise
    finally:
        TOOL_CALLS.labels(label, outcome).inc()
        TOOL_CALL_SECONDS.labels(label).observe(time.perf_counter() - started)
    return ToolResult(
        name=tool.name,
        tool_call_id=request.tool_call_id,
        content=fitted.text,
        tokens=fitted.tokens,
        max_tokens=limit,
        left_out=fitted.left_out,
        cut=fitted.cut,
        references=[ToolReference(kind=r.kind, id=r.id) for r in fitted.references],
        message=ToolMessage(tool_call_id=request.tool_call_id, content=fitted.text)
        if request.tool_call_id is not None
        else None,
    )
