"""The MCP server definition, whichever transport carries it."""

from mcp.server.mcpserver import MCPServer

from app.mcp.calls import Connect
from app.mcp.resources import register_resources
from app.mcp.tools import register_tools

INSTRUCTIONS = """Context Engine keeps an agent's memories (decisions, facts, procedures,
episodes, censors) and its conversations. Before answering, call build_context and put its
`context` in the system prompt; write what was learned with remember; after answering, call
feedback with the context_id and the reply."""


def create_mcp_server(connect: Connect) -> MCPServer:
    """The server with its tools and resources; `connect` gives the caller's API."""
    server: MCPServer = MCPServer(
        "context-engine", instructions=INSTRUCTIONS, version="0.1.0", log_level="WARNING"
    )
    register_tools(server, connect)
    register_resources(server, connect)
    return server
