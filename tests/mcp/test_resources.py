"""The MCP resources (an agent, its recent builds) through the SDK's own client, against a
real served process on the test database."""

import json

import pytest

from tests.factories import Tenancy
from tests.mcp.conftest import McpClientOf
from tests.mcp.test_tools import call

pytestmark = pytest.mark.committed


async def test_the_agent_is_a_resource(mcp_of: McpClientOf, tenancy_a: Tenancy, agent: str) -> None:
    async with mcp_of(tenancy_a.key) as mcp:
        templates = await mcp.list_resource_templates()
        record = await mcp.read_resource(f"agent://{agent}")
    assert "agent://{agent_id}" in {t.uri_template for t in templates.resource_templates}
    text = getattr(record.contents[0], "text", "")
    assert f'"agent_id": "{agent}"' in text
    assert '"name": "Newton"' in text


async def test_recent_builds_are_a_resource(
    mcp_of: McpClientOf, tenancy_a: Tenancy, agent: str
) -> None:
    async with mcp_of(tenancy_a.key) as mcp:
        built = await call(mcp, "build_context", agent_id=agent, input="What changed today?")
        listed = await mcp.read_resource(f"agent://{agent}/builds")
    text = getattr(listed.contents[0], "text", "")
    items = json.loads(text)["items"]
    assert items[0]["context_id"] == built["context_id"]
    assert items[0]["input"] == "What changed today?"
