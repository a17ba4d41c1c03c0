"""How /mcp and the stdio bridge behave around the tools: methods, metrics, resource errors, the
key from the environment."""

import sys

import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS
from prometheus_client.parser import text_string_to_metric_families

from tests.factories import Tenancy
from tests.mcp.conftest import McpClientOf, Service, http_client
from tests.mcp.test_tools import call, refused
from tests.process.launcher import REPO

pytestmark = pytest.mark.committed


def test_get_and_delete_answer_405_at_once(service: Service, tenancy_a: Tenancy) -> None:
    """Stateless with JSON answers: no event stream on GET (a plain curl used to hang on one),
    no session to end on DELETE."""
    headers = {"Authorization": f"Bearer {tenancy_a.key}"}
    with httpx.Client(base_url=service.url, headers=headers, timeout=5.0, trust_env=False) as http:
        for method in ("GET", "DELETE"):
            response = http.request(method, "/mcp")
            assert response.status_code == 405, (method, response.text)
            assert response.headers["allow"] == "POST"
            assert response.headers["content-type"] == "application/problem+json"


def _mcp_requests(metrics: str) -> float:
    return sum(
        sample.value
        for family in text_string_to_metric_families(metrics)
        for sample in family.samples
        if sample.name == "ce_http_requests_total"
        and sample.labels["route"] == "/mcp"
        and sample.labels["method"] == "POST"
        and sample.labels["status"] == "200"
    )


async def test_mcp_requests_are_counted_under_their_route(
    service: Service, tenancy_a: Tenancy, agent: str
) -> None:
    async with httpx.AsyncClient(base_url=service.url, trust_env=False) as http:
        before = _mcp_requests((await http.get("/metrics")).text)
        async with http_client(service)(tenancy_a.key) as mcp:
            await call(mcp, "list_memories", agent_id=agent)
        after = _mcp_requests((await http.get("/metrics")).text)
    assert after >= before + 2  # the session's initialize, and the tool's call at least


async def test_an_unknown_agent_is_a_not_found_resource(
    mcp_of: McpClientOf, tenancy_a: Tenancy
) -> None:
    async with mcp_of(tenancy_a.key) as mcp:
        with pytest.raises(MCPError) as raised:
            await mcp.read_resource("agent://nobody-here")
        message = await refused(mcp, "build_context", agent_id="nobody-here", input="Hello?")
    assert raised.value.error.code == INVALID_PARAMS
    assert "Agent 'nobody-here' does not exist" in raised.value.error.message
    # The hints name the tool to use, not the REST route.
    for said in (raised.value.error.message, message):
        assert "create_agent tool" in said
        assert "PUT /agents" not in said


async def test_the_stdio_bridge_takes_its_key_from_the_environment(
    service: Service, tenancy_a: Tenancy, agent: str
) -> None:
    env = {**service.env, "CE_API_KEY": tenancy_a.key}
    args = ["-m", "app", "mcp", "--url", service.url]  # no --api-key: not in the process list
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=REPO)
    async with Client(params) as mcp:
        listed = await call(mcp, "list_memories", agent_id=agent)
    assert listed["memories"] == []
