"""POST /context/build with a long session: the summaries the worker made stand for the evicted
messages, after the sinks and before the kept ones, inside the same promise; never made during
a build."""

from typing import Any

import httpx
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.worker import Worker
from app.providers.container import Providers
from app.sessions.models import SessionSummary
from tests.context.history.test_history_api import chat_tokens
from tests.factories import Tenancy, put_agent
from tests.sessions.test_session_summaries import append, long_session

WINDOW = {
    "total": 1500,
    "system_reserve": 100,
    "tools_reserve": 100,
    "memory_fraction": 0.05,
    "learnings_fraction": 0.0,
    "fresh_tail": 6,
    "sinks": 2,
}


async def build(
    client: httpx.AsyncClient, tenancy: Tenancy, window: dict[str, Any] = WINDOW
) -> dict[str, Any]:
    response = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={
            "agent_id": "newton",
            "input": "Where are we?",
            "model": "gpt-4o",
            "session_id": "long-1",
            "window": window,
        },
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def keeps_the_promise(providers: Providers, result: dict[str, Any]) -> None:
    history = result["history"]
    assert history["tokens"] == chat_tokens(providers, result["messages"])
    context = providers.tokens.count(result["context"], "o200k_base")
    assert context + history["tokens"] <= history["window"]["available"]


async def test_summaries_stand_for_the_evicted_messages(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker, providers: Providers
) -> None:
    await put_agent(client, tenancy, "newton")
    await append(client, tenancy, long_session(140))
    said = [{"role": m["role"], "content": m["content"]} for m in long_session(140)]

    before = await build(client, tenancy)  # the worker has not run: no summary yet
    keeps_the_promise(providers, before)
    assert before["history"]["summaries"] == []
    assert not any(m["content"].startswith("[Summary:") for m in before["messages"])

    await worker.drain()
    result = await build(client, tenancy)
    keeps_the_promise(providers, result)
    messages, history = result["messages"], result["history"]
    used = history["summaries"]
    assert used
    # After the sinks, in conversation order, as system messages with the design's header.
    assert messages[:2] == said[:2]
    shown = messages[2 : 2 + len(used)]
    assert all(m["role"] == "system" for m in shown)
    assert all(
        m["content"].startswith(f"[Summary: depth {s['depth']}, ")
        for m, s in zip(shown, used, strict=True)
    )
    assert [s["first_seq"] for s in used] == sorted(s["first_seq"] for s in used)
    # The coarsest first: the depth-2 summary of the first hundred messages, then finer ones.
    assert (used[0]["depth"], used[0]["first_seq"], used[0]["last_seq"]) == (2, 0, 99)
    assert used[0]["messages"] == 100
    assert all(s["quoted_seqs"] for s in used)
    # Only evicted messages are summarized; the kept ones follow, contiguous up to the last.
    first_kept = history["first_kept_seq"]
    assert all(s["last_seq"] < first_kept for s in used)
    assert messages[2 + len(used) :] == said[first_kept:]
    assert history["kept"] == 2 + 140 - first_kept
    assert history["tokens"] == chat_tokens(providers, messages)
    stored = await client.get(f"/context/{result['context_id']}", headers=tenancy.headers)
    assert stored.json()["history"]["summaries"] == used


async def test_a_build_makes_no_summary(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    providers: Providers,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(client, tenancy, "newton")
    await append(client, tenancy, long_session(140))
    keeps_the_promise(providers, await build(client, tenancy))
    async with sessionmaker() as session:
        assert await session.scalar(select(func.count()).select_from(SessionSummary)) == 0


async def test_under_pressure_long_tool_output_is_shown_by_its_summary(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker, providers: Providers
) -> None:
    await put_agent(client, tenancy, "newton")
    log = " ".join(
        f"Step {i}: the migration copied {i * 1000} rows of invoices." for i in range(80)
    )
    pasted = "Here is the whole stack trace again. " * 60
    said: list[dict[str, Any]] = [
        {"role": "system", "content": "You are Newton."},
        {"role": "user", "content": "Run the invoice migration."},
        {"role": "user", "content": pasted},  # a long user message: never rewritten
        {"role": "assistant", "content": "Running it now."},
        {"role": "tool", "content": log, "tool_call_id": "call_1"},  # far over 400 tokens
        *[{"role": ("user", "assistant")[i % 2], "content": f"Short turn {i}."} for i in range(6)],
    ]
    response = await client.post(
        "/agents/newton/sessions/long-1/messages", json={"messages": said}, headers=tenancy.headers
    )
    assert response.status_code == 201, response.text
    await worker.drain()
    result = await build(client, tenancy, WINDOW | {"total": 1100})
    keeps_the_promise(providers, result)
    history, messages = result["history"], result["messages"]
    assert history["shown_by_summary"] == [4]
    tool = next(m for m in messages if m["role"] == "tool")
    assert tool["tool_call_id"] == "call_1"
    assert tool["content"].startswith("[Summarized: ")
    assert providers.tokens.count(tool["content"], "o200k_base") < 200
    # The fill went on past it; the long user message was not rewritten: it is kept whole or
    # evicted.
    assert all(
        m["content"] in {s["content"] for s in said} for m in messages if m["role"] == "user"
    )
