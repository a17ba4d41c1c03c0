"""The MCP tools that list, move and erase memories and append to a session, over both
transports against the served process."""

import asyncio

import httpx
import pytest

from tests.factories import Tenancy, decision, fact
from tests.mcp.conftest import McpClientOf
from tests.mcp.test_tools import call, refused, unique

pytestmark = pytest.mark.committed


async def test_list_memories_pages_and_filters(
    mcp_of: McpClientOf, tenancy_a: Tenancy, agent: str
) -> None:
    async with mcp_of(tenancy_a.key) as mcp:
        facts = [
            await call(mcp, "remember", agent_id=agent, memory=fact(unique(f"Fact {n}.")))
            for n in range(3)
        ]
        chosen = await call(mcp, "remember", agent_id=agent, memory=decision(unique("Queue")))
        first = await call(mcp, "list_memories", agent_id=agent, kinds=["fact"], limit=2)
        rest = await call(
            mcp, "list_memories", agent_id=agent, kinds=["fact"], cursor=first["next_cursor"]
        )
        decisions = await call(mcp, "list_memories", agent_id=agent, kinds=["decision"])
    newest_first = [f["memory_id"] for f in reversed(facts)]
    assert [m["memory_id"] for m in first["memories"] + rest["memories"]] == newest_first
    assert rest["next_cursor"] is None
    assert [m["memory_id"] for m in decisions["memories"]] == [chosen["memory_id"]]


async def test_update_memory_takes_a_lifecycle_action_or_says_which_it_takes(
    mcp_of: McpClientOf, tenancy_a: Tenancy, agent: str
) -> None:
    async with mcp_of(tenancy_a.key) as mcp:
        known = await call(mcp, "remember", agent_id=agent, memory=fact(unique("Disk is 80%.")))
        invalid = await call(
            mcp, "update_memory", memory_id=known["memory_id"], action={"action": "invalidate"}
        )
        again = await refused(
            mcp, "update_memory", memory_id=known["memory_id"], action={"action": "confirm"}
        )
        unknown = await refused(
            mcp, "update_memory", memory_id=known["memory_id"], action={"action": "explode"}
        )
    assert invalid["state"] == "inactive"
    assert "409" in again
    # The SDK checks the action against the schema: it names the one given and those taken.
    assert "'explode'" in unknown
    assert "'invalidate'" in unknown


async def test_delete_memory_erases_it(
    mcp_of: McpClientOf, tenancy_a: Tenancy, api: httpx.Client, agent: str
) -> None:
    async with mcp_of(tenancy_a.key) as mcp:
        known = await call(mcp, "remember", agent_id=agent, memory=fact(unique("Old host.")))
        chosen = await call(mcp, "remember", agent_id=agent, memory=decision(unique("Vendor")))
        erased = await call(mcp, "delete_memory", memory_id=known["memory_id"])
        kept = await refused(mcp, "delete_memory", memory_id=chosen["memory_id"])
        forced = await call(
            mcp, "delete_memory", memory_id=chosen["memory_id"], erase_decision=True
        )
        opened = await refused(mcp, "expand_memory", memory_id=known["memory_id"])
    assert erased == {"memory_id": known["memory_id"], "erased": True}
    assert "409" in kept
    assert forced["erased"] is True
    assert "410" in opened
    response = await asyncio.to_thread(api.get, f"/memories/{known['memory_id']}")
    assert response.status_code == 410


async def test_append_messages_then_build_with_the_session(
    mcp_of: McpClientOf, tenancy_a: Tenancy, agent: str
) -> None:
    turns = [
        {"role": "user", "content": "Which queue did we choose?"},
        {"role": "assistant", "content": "PostgreSQL, with SKIP LOCKED."},
    ]
    async with mcp_of(tenancy_a.key) as mcp:
        appended = await call(
            mcp, "append_messages", agent_id=agent, session_id="chat-9", messages=turns
        )
        more = await call(
            mcp,
            "append_messages",
            agent_id=agent,
            session_id="chat-9",
            messages=[{"role": "user", "content": "And the cache?"}],
        )
        built = await call(
            mcp,
            "build_context",
            agent_id=agent,
            input="And the cache?",
            session_id="chat-9",
            window={"total": 8000},
        )
        empty = await refused(
            mcp, "append_messages", agent_id=agent, session_id="chat-9", messages=[]
        )
    assert [m["seq"] for m in appended["messages"]] == [0, 1]
    assert (more["messages"], more["messages_in_session"]) == ([{"seq": 2, "role": "user"}], 3)
    assert built["messages"][:2] == turns
    assert "messages" in empty
    assert "at least 1 item" in empty


async def test_search_memory_stores_no_build(
    mcp_of: McpClientOf, tenancy_a: Tenancy, api: httpx.Client, agent: str
) -> None:
    content = unique("Backups are copied to the second region nightly.")
    async with mcp_of(tenancy_a.key) as mcp:
        written = await call(mcp, "remember", agent_id=agent, memory=fact(content))
        found = await call(mcp, "search_memory", agent_id=agent, query=content.split()[-1][:-1])
    assert [m["memory_id"] for m in found["memories"]] == [written["memory_id"]]
    builds = await asyncio.to_thread(api.get, "/context", params={"agent_id": agent})
    assert builds.json()["items"] == []
