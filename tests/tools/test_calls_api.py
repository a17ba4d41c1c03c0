"""POST /agents/{agent_id}/tools/{name}: the model's arguments as a string or an object, the
ready tool message, the result held to its tokens, and errors as problem+json."""

import json

import httpx
import pytest

from app.providers.container import Providers
from tests.factories import Tenancy, put_agent, write
from tests.tools.calls import TOOLS, call, remember, result

PROBLEM = "application/problem+json"


async def test_arguments_as_a_string_or_an_object_give_the_same_result(
    client: httpx.AsyncClient, tenancy: Tenancy, providers: Providers
) -> None:
    await put_agent(client, tenancy)
    await remember(client, tenancy, "The staging database password rotates every Tuesday.")
    arguments = {"query": "staging password", "limit": 3}
    as_object = await result(client, tenancy, "search_memory", arguments)
    as_string = await result(
        client, tenancy, "search_memory", json.dumps(arguments), tool_call_id="call_8Kx2"
    )
    assert as_string["content"] == as_object["content"]
    assert as_string["references"] == as_object["references"]
    assert as_string["tokens"] == providers.tokens.count(as_string["content"], "o200k_base")
    assert as_string["max_tokens"] == 1000  # CE_TOOLS__MAX_TOKENS
    assert as_string["tool_call_id"] == "call_8Kx2"
    assert as_string["message"] == {
        "role": "tool",
        "tool_call_id": "call_8Kx2",
        "content": as_string["content"],
    }


async def test_the_result_is_held_to_max_tokens(
    client: httpx.AsyncClient, tenancy: Tenancy, providers: Providers
) -> None:
    await put_agent(client, tenancy)
    for i in range(8):
        await remember(client, tenancy, f"Deploy {i} of the billing service failed on a timeout.")
    long = await write(
        client, tenancy, {"kind": "fact", "content": "The billing outage: " + "retry. " * 600}
    )
    arguments = {"query": "billing deploy timeout", "limit": 8}
    found = await result(client, tenancy, "search_memory", arguments, max_tokens=120)
    assert found["tokens"] == providers.tokens.count(found["content"], "o200k_base")
    assert found["tokens"] <= 120
    assert found["left_out"] > 0
    assert (
        f"({found['left_out']} more not shown: the result is held to 120 tokens.)"
        in (found["content"])
    )
    shown = len(found["references"])
    assert 0 < shown < 8
    assert found["content"].count("- [memory ") == shown
    # A long memory's full text is cut to fit, in the model's own encoding.
    expanded = await result(
        client, tenancy, "expand_memory", {"memory_id": long["id"]}, max_tokens=100, model="gpt-4"
    )
    assert expanded["cut"] is True
    assert expanded["content"].endswith("…")
    assert expanded["tokens"] == providers.tokens.count(expanded["content"], "cl100k_base")
    assert expanded["tokens"] <= 100
    assert expanded["references"] == [{"kind": "memory", "id": long["id"]}]


async def test_an_unknown_tool_is_404(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    await put_agent(client, tenancy)
    response = await call(client, tenancy, "search_efforts_v9", {"query": "x"})
    assert response.status_code == 404
    assert response.headers["content-type"] == PROBLEM
    assert response.json()["tools"] == [
        "search_memory",
        "expand_memory",
        "expand_effort",
        "effort_status",
    ]


@pytest.mark.parametrize(
    ("arguments", "loc"),
    [
        ({}, ["body", "arguments", "query"]),
        ({"query": "  "}, ["body", "arguments", "query"]),
        ({"query": "x", "limit": 0}, ["body", "arguments", "limit"]),
        ({"query": "x", "limit": "5"}, ["body", "arguments", "limit"]),
        ({"query": "x", "kinds": ["censor"]}, ["body", "arguments", "kinds", 0]),
        ({"query": "x", "session_id": "no spaces"}, ["body", "arguments", "session_id"]),
        ({"query": "x", "colour": "red"}, ["body", "arguments", "colour"]),
        ('{"query": "x"', ["body", "arguments"]),
        ("[1, 2]", ["body", "arguments"]),
        ('{"query": NaN}', ["body", "arguments"]),
        ('{"query": "a\\u0000b"}', ["body", "arguments"]),
    ],
)
async def test_bad_arguments_are_422_naming_the_field(
    client: httpx.AsyncClient, tenancy: Tenancy, arguments: object, loc: list[str | int]
) -> None:
    await put_agent(client, tenancy)
    response = await client.post(
        f"{TOOLS}/search_memory", json={"arguments": arguments}, headers=tenancy.headers
    )
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == PROBLEM
    assert response.json()["errors"][0]["loc"] == loc


async def test_bad_bodies_are_422(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    await put_agent(client, tenancy)
    for body in ({"arguments": 5}, {"arguments": {}, "max_tokens": 10}, {"tool_call_id": ""}):
        response = await client.post(f"{TOOLS}/search_memory", json=body, headers=tenancy.headers)
        assert response.status_code == 422, response.text
        assert response.headers["content-type"] == PROBLEM


async def test_another_tenants_agent_is_404(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    await remember(client, tenancy, "The staging database password rotates every Tuesday.")
    response = await call(client, other_tenancy, "search_memory", {"query": "staging password"})
    assert response.status_code == 404
    assert response.headers["content-type"] == PROBLEM


async def test_calls_are_counted_on_metrics(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    def count(text: str, tool: str, outcome: str) -> float:
        line = f'ce_tool_calls_total{{outcome="{outcome}",tool="{tool}"}} '
        found = [row for row in text.splitlines() if row.startswith(line)]
        return float(found[0].split(" ")[1]) if found else 0.0

    await put_agent(client, tenancy)
    before = (await client.get("/metrics")).text
    await result(client, tenancy, "search_memory", {"query": "anything"})
    await call(client, tenancy, "search_memory", {})
    await call(client, tenancy, "nope", {})
    after = (await client.get("/metrics")).text
    assert count(after, "search_memory", "ok") == count(before, "search_memory", "ok") + 1
    assert count(after, "search_memory", "invalid") == count(before, "search_memory", "invalid") + 1
    assert count(after, "unknown", "not_found") == count(before, "unknown", "not_found") + 1
    assert 'ce_tool_call_seconds_count{tool="search_memory"}' in after
