"""The tools an agent's LLM calls through the service: their definitions, and one call run
(sync and async)."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import TypeAdapter

from context_engine_client.calls import json_ready, keyed, segment
from context_engine_client.core import AsyncSender, Call, SyncSender, decode
from context_engine_client.models import ToolDefinition, ToolResult

_DEFINITIONS = TypeAdapter(list[ToolDefinition])


def tools(agent: str) -> Call[list[ToolDefinition]]:
    return Call("GET", f"/agents/{segment(agent)}/tools", decode(_DEFINITIONS.validate_json))


def call_tool(
    agent: str,
    name: str,
    arguments: str | Mapping[str, object],
    tool_call_id: str | None,
    max_tokens: int | None,
    idempotency_key: str | None,
) -> Call[ToolResult]:
    body: dict[str, object] = {"arguments": json_ready(arguments)}
    extra = {"tool_call_id": tool_call_id, "max_tokens": max_tokens}
    body |= {key: value for key, value in extra.items() if value is not None}
    path = f"/agents/{segment(agent)}/tools/{segment(name)}"
    read = decode(ToolResult.model_validate_json)
    return Call("POST", path, read, body, headers=keyed(idempotency_key))


class SyncTools:
    """`ContextEngine`'s methods for the LLM's tools."""

    def tools(self: SyncSender, agent: str) -> list[ToolDefinition]:
        """The tools as OpenAI function definitions: pass them to the model as `tools`."""
        return self.send(tools(agent))

    def call_tool(
        self: SyncSender,
        agent: str,
        name: str,
        arguments: str | Mapping[str, object],
        *,
        tool_call_id: str | None = None,
        max_tokens: int | None = None,
        idempotency_key: str | None = None,
    ) -> ToolResult:
        """Run the model's tool call (`arguments` as the model gave them, a JSON string or a
        mapping); `result.message` is the tool message to append."""
        call = call_tool(agent, name, arguments, tool_call_id, max_tokens, idempotency_key)
        return self.send(call)


class AsyncTools:
    """`AsyncContextEngine`'s methods for the LLM's tools."""

    async def tools(self: AsyncSender, agent: str) -> list[ToolDefinition]:
        """The tools as OpenAI function definitions: pass them to the model as `tools`."""
        return await self.send(tools(agent))

    async def call_tool(
        self: AsyncSender,
        agent: str,
        name: str,
        arguments: str | Mapping[str, object],
        *,
        tool_call_id: str | None = None,
        max_tokens: int | None = None,
        idempotency_key: str | None = None,
    ) -> ToolResult:
        """Run the model's tool call (`arguments` as the model gave them, a JSON string or a
        mapping); `result.message` is the tool message to append."""
        call = call_tool(agent, name, arguments, tool_call_id, max_tokens, idempotency_key)
        return await self.send(call)
