"""GET /agents/{agent_id}/tools: OpenAI function definitions the chat completions API takes."""

import json

import httpx
from openai.types.chat import ChatCompletionToolParam
from pydantic import TypeAdapter

from app.core.config import Settings
from app.providers.container import Providers
from tests.factories import Tenancy, put_agent
from tests.tools.calls import TOOLS


async def test_the_definitions_are_openai_tools(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    response = await client.get(TOOLS, headers=tenancy.headers)
    assert response.status_code == 200, response.text
    tools = response.json()
    # Exactly the shape of the openai package's type for a chat request's `tools`.
    TypeAdapter(list[ChatCompletionToolParam]).validate_python(tools, strict=True)
    assert [tool["function"]["name"] for tool in tools] == [
        "search_memory",
        "expand_memory",
        "expand_effort",
        "effort_status",
    ]
    for tool in tools:
        assert set(tool) == {"type", "function"}
        assert set(tool["function"]) == {"name", "description", "parameters"}
        parameters = tool["function"]["parameters"]
        assert parameters["type"] == "object"
        assert parameters["additionalProperties"] is False
        assert "title" not in str(parameters)  # pydantic's titles are noise to a model
        assert set(parameters["required"]) <= set(parameters["properties"])
    search = tools[0]["function"]["parameters"]
    assert search["required"] == ["query"]
    assert search["properties"]["kinds"] == {
        "type": "array",
        "items": {"enum": ["decision", "fact", "procedure", "episode"], "type": "string"},
        "minItems": 1,
        "maxItems": 4,
        "description": "Only memories of these kinds; all kinds when left out.",
    }
    assert search["properties"]["limit"]["type"] == "integer"  # no null branch: leave it out
    expand = tools[1]["function"]["parameters"]
    assert expand["required"] == ["memory_id"]
    assert expand["properties"]["level"]["enum"] == ["micro", "summary", "full"]
    expand_effort = tools[2]["function"]["parameters"]
    assert expand_effort["required"] == ["session_id", "effort_id"]
    assert expand_effort["properties"]["effort_id"]["pattern"] == "^e_[1-9][0-9]{0,8}$"
    status = tools[3]["function"]["parameters"]
    assert status["required"] == ["session_id"]
    assert status["properties"]["effort_id"]["type"] == "string"  # optional: no null branch


async def test_the_definitions_fit_the_default_tools_reserve(
    client: httpx.AsyncClient, tenancy: Tenancy, providers: Providers, settings: Settings
) -> None:
    """A build keeps CE_CONTEXT__WINDOW__TOOLS_RESERVE tokens for them, with room to spare."""
    await put_agent(client, tenancy)
    tools = (await client.get(TOOLS, headers=tenancy.headers)).json()
    tokens = providers.tokens.count(json.dumps(tools), "o200k_base")
    assert tokens <= settings.context.window.tools_reserve // 2


async def test_another_tenants_agent_has_no_tools(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    response = await client.get(TOOLS, headers=other_tenancy.headers)
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert "newton" in response.json()["detail"]
