"""The MCP tools of agents, contexts and sessions (those of memories: `memory_tools.py`).

Each tool is one call (or two) of the service's API through `connect`, which gives the API of
the caller's tenant; what the API refuses comes back as a tool error naming the field at fault.
"""

import uuid
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from app.agents.schemas import AgentRead, ContextWindow, Identity
from app.context.followups.schemas import ContextFeedbackResponse
from app.context.schemas import AgentRef, SessionId
from app.context.types import FlexibleKind
from app.mcp.api import ApiError, JsonBody, Params, ServiceApi
from app.mcp.calls import Connect, McpContext, service, tool
from app.mcp.memory_tools import register_memory_tools
from app.mcp.schemas import AppendedMessages, BuiltContext, FoundMemory, SearchResult
from app.sessions.schemas import MessageCreate

Query = Annotated[str, Field(min_length=1, max_length=2000)]
Input = Annotated[str, Field(min_length=1, max_length=50_000)]
Budget = Annotated[int, Field(ge=1, le=1_000_000)]


async def search_memories(
    api: ServiceApi,
    agent_id: str,
    query: str,
    limit: int,
    kinds: list[FlexibleKind] | None = None,
) -> SearchResult:
    """The agent's memories that best match a query, by meaning and words, best first, with
    their summaries (`GET /agents/{agent_id}/memories/search`: no build is stored)."""
    params: Params = {"q": query, "limit": limit}
    if kinds:
        params["kind"] = list(kinds)
    found = await api.search(agent_id, params)
    return SearchResult(
        query=query,
        memories=[
            FoundMemory(
                memory_id=memory.memory_id,
                kind=memory.kind,
                state=memory.state,
                score=memory.score,
                summary=memory.summary,
            )
            for memory in found.memories
        ],
    )


def register_tools(server: MCPServer, connect: Connect) -> None:
    """Add the tools to `server`; `connect` gives the API of the caller's tenant."""
    _register_agent_tools(server, connect)
    _register_context_tools(server, connect)
    _register_session_tools(server, connect)
    register_memory_tools(server, connect)


def _register_agent_tools(server: MCPServer, connect: Connect) -> None:
    @tool(server)
    async def create_agent(agent_id: AgentRef, identity: Identity, ctx: McpContext) -> AgentRead:
        """Create an agent with its identity (name, description, traits, core rules): the top
        of its every context. An agent that exists is left as it is (an error says so)."""
        async with service(connect, ctx) as api:
            try:
                await api.agent(agent_id)
            except ApiError as exc:
                if exc.status != 404:
                    raise
            else:
                raise ToolError(f"Agent '{agent_id}' exists; PUT /agents/{agent_id} changes it.")
            body: JsonBody = {"identity": identity.model_dump(mode="json", exclude_unset=True)}
            return await api.put_agent(agent_id, body)


def _register_context_tools(server: MCPServer, connect: Connect) -> None:
    @tool(server)
    async def build_context(
        agent_id: AgentRef,
        input: Input,
        ctx: McpContext,
        session_id: SessionId | None = None,
        budget: Budget | None = None,
        window: ContextWindow | None = None,
    ) -> BuiltContext:
        """Build the context for what the agent is about to answer: the memories that matter
        inside a hard token budget (`budget`), or, with a session, also its pruned history
        inside the whole prompt's `window`. Put `context` in the system prompt."""
        body: JsonBody = {"agent_id": agent_id, "input": input, "manifest": "compact"}
        if session_id is not None:
            body["session_id"] = session_id
        if budget is not None:
            body["budget"] = budget
        if window is not None:
            body["window"] = window.model_dump(mode="json", exclude_none=True)
        async with service(connect, ctx) as api:
            return BuiltContext.of(await api.build(body))

    @tool(server)
    async def search_memory(
        agent_id: AgentRef,
        query: Query,
        ctx: McpContext,
        limit: Annotated[int, Field(ge=1, le=50)] = 10,
        kinds: list[FlexibleKind] | None = None,
    ) -> SearchResult:
        """Search the agent's memories by meaning and words; best first, with summaries."""
        async with service(connect, ctx) as api:
            return await search_memories(api, agent_id, query, limit, kinds)

    @tool(server)
    async def feedback(
        context_id: uuid.UUID,
        ctx: McpContext,
        used_memory_ids: list[uuid.UUID] | None = None,
        reply: Annotated[str, Field(max_length=200_000)] | None = None,
    ) -> ContextFeedbackResponse:
        """Tell which memories of a built context the answer used: their ids, or the reply
        itself (the service finds the memories it refers to). Once per context."""
        if (used_memory_ids is None) == (reply is None):
            raise ToolError("Give used_memory_ids or reply, one of the two.")
        body: JsonBody = (
            {"reply": reply}
            if reply is not None
            else {"used_memory_ids": [str(m) for m in used_memory_ids or []]}
        )
        async with service(connect, ctx) as api:
            return await api.feedback(context_id, body)


def _register_session_tools(server: MCPServer, connect: Connect) -> None:
    @tool(server)
    async def append_messages(
        agent_id: AgentRef,
        session_id: SessionId,
        messages: Annotated[list[MessageCreate], Field(min_length=1)],
        ctx: McpContext,
    ) -> AppendedMessages:
        """Append messages to a session of the agent, in order (the first creates the session):
        what build_context with that session_id prunes into the prompt's history."""
        body: JsonBody = {"messages": [m.model_dump(mode="json") for m in messages]}
        async with service(connect, ctx) as api:
            return AppendedMessages.of(await api.append(agent_id, session_id, body))
