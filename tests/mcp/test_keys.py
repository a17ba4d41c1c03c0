"""The MCP endpoints take the API's keys and nothing else."""

import uuid

import httpx
import pytest
from mcp import MCPError

from tests.mcp.conftest import Service, http_client, stdio_client
from tests.process.launcher import free_port

pytestmark = pytest.mark.committed

WRONG_KEY = "ce_00000000_not-a-key-of-this-service-at-all"


def test_http_endpoint_refuses_a_wrong_key(service: Service) -> None:
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    for headers in ({}, {"Authorization": f"Bearer {WRONG_KEY}"}):
        response = httpx.post(
            f"{service.url}/mcp", json=initialize, headers=headers, trust_env=False
        )
        assert response.status_code == 401, response.text
        assert response.headers["content-type"] == "application/problem+json"
        assert response.headers["www-authenticate"] == "Bearer"


async def test_http_client_with_a_wrong_key_cannot_connect(service: Service) -> None:
    with pytest.raises(ExceptionGroup) as refused:
        async with http_client(service)(WRONG_KEY) as mcp:
            await mcp.list_tools()
    # The SDK reports the 401 as an error response of the server (its tasks in a group).
    assert refused.group_contains(MCPError, match="error response", depth=2)


async def test_stdio_with_a_wrong_key_says_so(service: Service) -> None:
    async with stdio_client(service, "--url", service.url)(WRONG_KEY) as mcp:
        result = await mcp.call_tool("search_memory", {"agent_id": "newton", "query": "x"})
    assert result.is_error
    message = " ".join(getattr(block, "text", "") for block in result.content)
    assert "401" in message
    assert "Unauthorized" in message


async def test_stdio_says_when_the_service_is_out_of_reach(service: Service) -> None:
    nowhere = f"http://127.0.0.1:{free_port()}"
    async with stdio_client(service, "--url", nowhere)("ce_00000000_any") as mcp:
        result = await mcp.call_tool("expand_memory", {"memory_id": str(uuid.uuid4())})
    assert result.is_error
    message = " ".join(getattr(block, "text", "") for block in result.content)
    assert "cannot be reached" in message
