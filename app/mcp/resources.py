"""The MCP resources: an agent's record, and its recent builds."""

from mcp.server.mcpserver import MCPServer

from app.mcp.tools import Connect, McpContext, service


def register_resources(server: MCPServer, connect: Connect) -> None:
    """Add the resources to `server`; `connect` gives the API of the caller's tenant."""

    @server.resource(
        "agent://{agent_id}",
        name="agent",
        description="The agent's record: identity, working memory, default budget and model.",
        mime_type="application/json",
    )
    async def agent(agent_id: str, ctx: McpContext) -> str:
        async with service(connect, ctx) as api:
            return (await api.agent(agent_id)).model_dump_json(indent=2)
