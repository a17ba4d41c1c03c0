"""The MCP resources: an agent's record, and its recent builds."""

from mcp.server.mcpserver import MCPServer

from app.mcp.calls import Connect, McpContext, resource_service

# Builds the recent-builds resource lists.
RECENT_BUILDS = 20


def register_resources(server: MCPServer, connect: Connect) -> None:
    """Add the resources to `server`; `connect` gives the API of the caller's tenant."""

    @server.resource(
        "agent://{agent_id}",
        name="agent",
        description="The agent's record: identity, working memory, default budget and model.",
        mime_type="application/json",
    )
    async def agent(agent_id: str, ctx: McpContext) -> str:
        async with resource_service(connect, ctx) as api:
            return (await api.agent(agent_id)).model_dump_json(indent=2)

    @server.resource(
        "agent://{agent_id}/builds",
        name="recent-builds",
        description=f"The agent's latest {RECENT_BUILDS} context builds, newest first: input, "
        "frame, tokens and feedback; each one whole with GET /context/{context_id}.",
        mime_type="application/json",
    )
    async def recent_builds(agent_id: str, ctx: McpContext) -> str:
        async with resource_service(connect, ctx) as api:
            return (await api.contexts(agent_id, RECENT_BUILDS)).model_dump_json(indent=2)
