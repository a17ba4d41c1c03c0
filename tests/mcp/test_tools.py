"""The MCP tools through the SDK's own client, over streamable HTTP and over stdio, against a
real served process on the test database."""

import asyncio
import uuid
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.factories import Tenancy, decision, fact, procedure
from tests.mcp.conftest import McpClientOf

pytestmark = pytest.mark.committed

TOOLS = {
    "create_agent",
    "build_context",
    "append_messages",
    "remember",
    "list_memories",
    "search_memory",
    "expand_memory",
    "update_memory",
    "record_outcome",
    "delete_memory",
    "feedback",
}


async def call(mcp: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's structured result; fails the test on a tool error."""
    result = await mcp.call_tool(tool, arguments)
    assert not result.is_error, result.content
    content: dict[str, Any] | None = result.structured_content
    assert content is not None
    return content


async def refused(mcp: Client, tool: str, **arguments: Any) -> str:
    """The message of a tool error."""
    result = await mcp.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return " ".join(getattr(block, "text", "") for block in result.content)


def unique(text: str) -> str:
    """A sentence with a word no other test writes: no worker embeds memories here, so
    searches and builds find them by their words, and a rare word finds this one."""
    word = "".join(chr(ord("a") + int(digit, 16)) for digit in uuid.uuid4().hex[:10])
    return f"{text} (marker {word})"


def marker(text: str) -> str:
    return text.split()[-1].rstrip(")")


async def test_lists_the_tools(mcp_of: McpClientOf, tenancy_a: Tenancy) -> None:
    async with mcp_of(tenancy_a.key) as mcp:
        tools = await mcp.list_tools()
    assert {tool.name for tool in tools.tools} == TOOLS
    remember = next(tool for tool in tools.tools if tool.name == "remember")
    # The memory argument is the API's write schema: one of the five kinds, each its fields.
    assert {"DecisionCreate", "FactCreate", "CensorCreate"} <= set(remember.input_schema["$defs"])
    for tool in tools.tools:  # the docstrings' indentation is not the model's business
        assert tool.description
        assert "\n " not in tool.description, tool.name


async def test_remember_then_search_finds_it(
    mcp_of: McpClientOf, tenancy_a: Tenancy, api: httpx.Client, agent: str
) -> None:
    content = unique("Billing exports run nightly on the reporting replica.")
    word = marker(content)
    async with mcp_of(tenancy_a.key) as mcp:
        written = await call(mcp, "remember", agent_id=agent, memory=fact(content))
        found = await call(mcp, "search_memory", agent_id=agent, query=f"{word} exports")
    assert written["kind"] == "fact"
    assert written["written"] == "created"
    assert found["memories"][0]["memory_id"] == written["memory_id"]
    assert word in found["memories"][0]["summary"]
    # Written through the API for real: the HTTP API reads it back.
    response = await asyncio.to_thread(api.get, f"/memories/{written['memory_id']}")
    assert response.status_code == 200


async def test_build_context_fits_its_budget(
    mcp_of: McpClientOf, tenancy_a: Tenancy, agent: str
) -> None:
    content = unique("The staging cluster is rebuilt every Monday at 06:00 UTC.")
    async with mcp_of(tenancy_a.key) as mcp:
        written = await call(mcp, "remember", agent_id=agent, memory=fact(content))
        built = await call(
            mcp,
            "build_context",
            agent_id=agent,
            input=f"When is the staging cluster rebuilt ({marker(content)})?",
            budget=300,
        )
    assert built["budget"] == 300
    assert 0 < built["used"] <= 300
    assert "staging cluster is rebuilt" in built["context"], built
    assert written["memory_id"] in {item["memory_id"] for item in built["memories"]}
    assert built["messages"] is None


async def test_expand_memory_gives_the_full_text(
    mcp_of: McpClientOf, tenancy_a: Tenancy, agent: str
) -> None:
    chosen = decision(unique("Chose PostgreSQL for the job queue"), reasons=["One backup"])
    async with mcp_of(tenancy_a.key) as mcp:
        written = await call(mcp, "remember", agent_id=agent, memory=chosen)
        opened = await call(mcp, "expand_memory", memory_id=written["memory_id"])
    assert opened["kind"] == "decision"
    assert "Chose PostgreSQL for the job queue" in opened["text"]
    assert "One backup" in opened["text"]
    assert opened["fields"]["alternatives"] == ["ChromaDB"]


async def test_feedback_on_a_build_once(
    mcp_of: McpClientOf, tenancy_a: Tenancy, agent: str
) -> None:
    content = unique("Invoices are archived after seven years.")
    async with mcp_of(tenancy_a.key) as mcp:
        written = await call(mcp, "remember", agent_id=agent, memory=fact(content))
        built = await call(
            mcp,
            "build_context",
            agent_id=agent,
            input=f"How long are invoices archived ({marker(content)})?",
        )
        rated = await call(
            mcp, "feedback", context_id=built["context_id"], used_memory_ids=[written["memory_id"]]
        )
        again = await refused(mcp, "feedback", context_id=built["context_id"], reply="Seven years.")
        neither = await refused(mcp, "feedback", context_id=built["context_id"])
    assert rated["referenced"] == [written["memory_id"]]
    assert rated["precision"] == round(1 / rated["included"], 4)
    assert "409" in again
    assert "already recorded" in again
    assert "one of the two" in neither


async def test_record_outcome_of_a_decision(
    mcp_of: McpClientOf, tenancy_a: Tenancy, agent: str
) -> None:
    async with mcp_of(tenancy_a.key) as mcp:
        chosen = await call(mcp, "remember", agent_id=agent, memory=decision(unique("Cache")))
        known = await call(mcp, "remember", agent_id=agent, memory=fact(unique("Sky")))
        reviewed = await call(
            mcp, "record_outcome", memory_id=chosen["memory_id"], outcome="success", notes="Fast."
        )
        wrong_kind = await refused(
            mcp, "record_outcome", memory_id=known["memory_id"], outcome="success"
        )
        # A reviewed decision's outcome is corrected (amended), not refused.
        amended = await call(
            mcp, "record_outcome", memory_id=chosen["memory_id"], outcome="failure"
        )
    assert reviewed["state"] == "reviewed"
    assert reviewed["outcome"] == "success"
    assert (amended["state"], amended["outcome"]) == ("reviewed", "failure")
    assert "decisions and procedures only" in wrong_kind


async def test_bad_input_is_a_clear_error(
    mcp_of: McpClientOf, tenancy_a: Tenancy, agent: str
) -> None:
    async with mcp_of(tenancy_a.key) as mcp:
        # The SDK checks the tool's schema; the API checks what the schema cannot say.
        no_kind = await refused(mcp, "remember", agent_id=agent, memory={"content": "x"})
        both = await refused(
            mcp,
            "build_context",
            agent_id=agent,
            input="hello",
            session_id="chat-1",
            budget=500,
            window={"total": 8000},
        )
    assert "kind" in no_kind
    assert "422" in both
    assert "budget or window" in both


async def test_another_tenants_agent_is_not_found(
    mcp_of: McpClientOf, tenancy_a: Tenancy, tenancy_b: Tenancy, agent: str
) -> None:
    async with mcp_of(tenancy_a.key) as mcp:
        written = await call(mcp, "remember", agent_id=agent, memory=fact(unique("Secret")))
    async with mcp_of(tenancy_b.key) as mcp:
        build = await refused(mcp, "build_context", agent_id=agent, input="What is secret?")
        opened = await refused(mcp, "expand_memory", memory_id=written["memory_id"])
        search = await refused(mcp, "search_memory", agent_id=agent, query="secret")
    for message in (build, opened, search):
        assert "404" in message, message


async def test_build_context_with_a_session_gives_its_history(
    mcp_of: McpClientOf, tenancy_a: Tenancy, api: httpx.Client, agent: str
) -> None:
    turns = [
        {"role": "user", "content": "Which database did we choose?"},
        {"role": "assistant", "content": "PostgreSQL with pgvector."},
    ]
    path = f"/agents/{agent}/sessions/chat-1/messages"
    appended = await asyncio.to_thread(api.post, path, json={"messages": turns})
    assert appended.status_code == 201, appended.text
    async with mcp_of(tenancy_a.key) as mcp:
        built = await call(
            mcp,
            "build_context",
            agent_id=agent,
            input="And the cache?",
            session_id="chat-1",
            window={"total": 8000},
        )
    assert built["messages"] == turns


async def test_record_outcome_of_a_procedure(
    mcp_of: McpClientOf, tenancy_a: Tenancy, agent: str
) -> None:
    async with mcp_of(tenancy_a.key) as mcp:
        deploy = await call(mcp, "remember", agent_id=agent, memory=procedure())
        used = await call(mcp, "record_outcome", memory_id=deploy["memory_id"], outcome="success")
        partial = await refused(
            mcp, "record_outcome", memory_id=deploy["memory_id"], outcome="partial"
        )
        opened = await call(mcp, "expand_memory", memory_id=deploy["memory_id"])
    assert used["kind"] == "procedure"
    assert opened["fields"]["activation_count"] == 1
    assert opened["fields"]["success_count"] == 1
    assert "success or failure" in partial


async def test_create_agent_makes_a_new_one_only(mcp_of: McpClientOf, tenancy_a: Tenancy) -> None:
    agent_id = f"created-{uuid.uuid4().hex[:8]}"
    identity = {"name": "Ada", "traits": ["precise"]}
    async with mcp_of(tenancy_a.key) as mcp:
        created = await call(mcp, "create_agent", agent_id=agent_id, identity=identity)
        again = await refused(mcp, "create_agent", agent_id=agent_id, identity={"name": "Bob"})
        built = await call(mcp, "build_context", agent_id=agent_id, input="Who are you?")
    assert created["agent_id"] == agent_id
    assert created["identity"]["traits"] == ["precise"]
    assert "exists" in again
    assert built["context"].startswith("## Identity\nAda.")


async def test_nothing_of_an_erased_agent_is_found(
    mcp_of: McpClientOf, tenancy_a: Tenancy, api: httpx.Client, agent: str
) -> None:
    content = unique("The billing replica is rebuilt every Sunday.")
    word = marker(content)
    question = f"When is the billing replica rebuilt ({word})?"
    async with mcp_of(tenancy_a.key) as mcp:
        written = await call(mcp, "remember", agent_id=agent, memory=fact(content))
        built = await call(mcp, "build_context", agent_id=agent, input=question)
        assert word in built["context"]  # the served process now keeps the agent's figures
        erased = await asyncio.to_thread(api.delete, f"/agents/{agent}")
        assert erased.status_code == 204, erased.text
        refusals = [
            await refused(mcp, "search_memory", agent_id=agent, query=word),
            await refused(mcp, "build_context", agent_id=agent, input=question),
            await refused(mcp, "expand_memory", memory_id=written["memory_id"]),
            await refused(mcp, "feedback", context_id=built["context_id"], reply=word),
        ]
        with pytest.raises(MCPError, match="404"):  # the resource is not found
            await mcp.read_resource(f"agent://{agent}")
        # An agent of the same id made again starts empty.
        created = await call(mcp, "create_agent", agent_id=agent, identity={"name": "Newer"})
        rebuilt = await call(mcp, "build_context", agent_id=agent, input=question)
        found = await call(mcp, "search_memory", agent_id=agent, query=word)
    for message in refusals:
        assert "404" in message, message
        assert "billing replica" not in message
    assert created["agent_id"] == agent
    assert "billing replica" not in rebuilt["context"]
    assert rebuilt["memories"] == []
    assert found["memories"] == []
