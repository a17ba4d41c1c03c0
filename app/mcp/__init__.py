"""The Model Context Protocol server: the service's tools and resources for MCP clients."""
