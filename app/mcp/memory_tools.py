"""The MCP tools of memories: write, list, open, move through the lifecycle, rate and erase."""

import uuid
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, JsonValue

from app.context.schemas import AgentRef
from app.mcp.api import JsonBody, Params
from app.mcp.calls import Connect, McpContext, service, tool
from app.mcp.schemas import ErasedMemory, MemoryList, OpenedMemory, StoredMemory
from app.memories.action_schemas import MemoryUpdate
from app.memories.schemas import Kind, MemoryCreate, MemoryRead, Outcome, State

ListLimit = Annotated[int, Field(ge=1, le=100)]


def _outcome_action(memory: MemoryRead, outcome: Outcome, notes: str | None) -> JsonBody:
    """The lifecycle action that records an outcome for the memory's kind."""
    if memory.kind == "decision":
        # A reviewed decision's outcome is corrected; the one it replaces stays in its log.
        name = "amend_outcome" if memory.state == "reviewed" else "record_outcome"
        action: JsonBody = {"action": name, "outcome": outcome}
        if notes:
            action["notes"] = notes
        return action
    if memory.kind == "procedure":
        if outcome not in ("success", "failure"):
            raise ToolError("A procedure's use succeeded or failed: give success or failure.")
        return {"action": "record_activation", "success": outcome == "success"}
    raise ToolError(
        f"Memory {memory.id} is a {memory.kind}: outcomes are recorded for decisions and "
        "procedures only."
    )


def _list_params(
    kinds: list[Kind] | None,
    states: list[State] | None,
    words: str | None,
    limit: int,
    cursor: str | None,
) -> Params:
    params: Params = {"limit": limit}
    if kinds:
        params["kind"] = list(kinds)
    if states:
        params["state"] = list(states)
    if words:
        params["q"] = words
    if cursor:
        params["cursor"] = cursor
    return params


def register_memory_tools(server: MCPServer, connect: Connect) -> None:
    """Add the memory tools to `server`; `connect` gives the API of the caller's tenant."""
    _register_reads(server, connect)
    _register_writes(server, connect)


def _register_reads(server: MCPServer, connect: Connect) -> None:
    @tool(server)
    async def list_memories(
        agent_id: AgentRef,
        ctx: McpContext,
        kinds: list[Kind] | None = None,
        states: list[State] | None = None,
        words: Annotated[str, Field(min_length=1, max_length=500)] | None = None,
        limit: ListLimit = 20,
        cursor: str | None = None,
    ) -> MemoryList:
        """List the agent's memories, newest first (best match first with `words`), optionally
        of some kinds and states; `next_cursor` as `cursor` gives the next page."""
        params = _list_params(kinds, states, words, limit, cursor)
        async with service(connect, ctx) as api:
            return MemoryList.of(await api.memories(agent_id, params))

    @tool(server)
    async def expand_memory(
        memory_id: uuid.UUID, ctx: McpContext, context_id: uuid.UUID | None = None
    ) -> OpenedMemory:
        """A memory's full text and fields, by id (from a context, or a search)."""
        async with service(connect, ctx) as api:
            return OpenedMemory.of(await api.expand(memory_id, context_id))


def _register_writes(server: MCPServer, connect: Connect) -> None:
    @tool(server)
    async def remember(agent_id: AgentRef, memory: MemoryCreate, ctx: McpContext) -> StoredMemory:
        """Write a memory for the agent: a decision, fact, procedure, episode or censor (a thing
        not to do), with the fields of its kind. A fact that repeats one confirms it."""
        body: dict[str, JsonValue] = memory.model_dump(mode="json", exclude_unset=True)
        async with service(connect, ctx) as api:
            return StoredMemory.of(await api.remember(agent_id, body))

    @tool(server)
    async def update_memory(
        memory_id: uuid.UUID, action: MemoryUpdate, ctx: McpContext
    ) -> StoredMemory:
        """Move a memory through its lifecycle with one action: confirm, supersede or
        invalidate a fact; record or amend a decision's outcome, or mark it pending; record a
        procedure's or censor's activation, a censor's false positive; summarize or archive an
        episode; retire a procedure or censor. The error of an action the memory does not
        take now lists those it does."""
        body: JsonBody = action.model_dump(mode="json", exclude_none=True)
        async with service(connect, ctx) as api:
            return StoredMemory.of(await api.update(memory_id, body))

    @tool(server)
    async def record_outcome(
        memory_id: uuid.UUID,
        outcome: Outcome,
        ctx: McpContext,
        notes: Annotated[str, Field(max_length=20_000)] | None = None,
    ) -> StoredMemory:
        """How a decision turned out (success, partial, failure, or pending; a reviewed
        decision's outcome and notes are replaced), or whether a use of a procedure succeeded
        (success or failure)."""
        async with service(connect, ctx) as api:
            memory = await api.memory(memory_id)
            action = _outcome_action(memory, outcome, notes)
            return StoredMemory.of(await api.update(memory_id, action))

    @tool(server)
    async def delete_memory(
        memory_id: uuid.UUID, ctx: McpContext, erase_decision: bool = False
    ) -> ErasedMemory:
        """Erase a memory for good: its text leaves the stored contexts too. Decisions are kept
        unless `erase_decision` is true; to stop using a memory without erasing it, use
        update_memory (retire, invalidate, archive)."""
        async with service(connect, ctx) as api:
            await api.delete(memory_id, erase=erase_decision)
        return ErasedMemory(memory_id=memory_id)
