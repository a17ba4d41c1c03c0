"""POST /context/build with a session: the history comes pruned inside the same hard budget."""

from typing import Any

import httpx

from app.providers.container import Providers
from tests.factories import Tenancy, fact, put_agent, write

MESSAGES = "/agents/newton/sessions/chat-1/messages"
WINDOW = {
    "total": 1400,
    "system_reserve": 150,
    "tools_reserve": 50,
    "memory_fraction": 0.1,
    "learnings_fraction": 0.05,
    "fresh_tail": 6,
    "sinks": 2,
}


def conversation(length: int) -> list[dict[str, Any]]:
    """A system prompt, then turns of a user (named now and then), the assistant and a tool."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are Newton. Be terse."}]
    for i in range(1, length):
        content = f"Turn {i}: " + "we weighed Redis against Postgres for the cache again. " * (
            1 + i % 3
        )
        message: dict[str, Any] = {"role": ("user", "assistant", "tool")[i % 3], "content": content}
        if i % 3 == 2:
            message["tool_call_id"] = f"call_{i}"
        elif i % 6 == 0:
            message["name"] = "ada"
        messages.append(message)
    return messages


async def post_build(client: httpx.AsyncClient, tenancy: Tenancy, **body: Any) -> httpx.Response:
    return await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": "newton", "input": "Should we use Redis for caching?", **body},
    )


def chat_tokens(providers: Providers, messages: list[dict[str, Any]]) -> int:
    """OpenAI's count of a gpt-4o chat request, done here on its own."""
    count = providers.tokens.count
    total = 3 if messages else 0
    for message in messages:
        total += 3 + sum(count(value, "o200k_base") for value in message.values())
        total += 1 if "name" in message else 0
    return total


def _overhead(metrics: str) -> tuple[float, float]:
    """The overhead histogram's sum and count from /metrics."""
    values = dict(
        line.split(" ")
        for line in metrics.splitlines()
        if line.startswith(("ce_context_overhead_sum ", "ce_context_overhead_count "))
    )
    return float(values["ce_context_overhead_sum"]), float(values["ce_context_overhead_count"])


async def test_the_contexts_share_of_the_request_is_a_series(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    await write(client, tenancy, fact("Redis adds a separate service to run and back up."))
    await client.post(MESSAGES, json={"messages": conversation(20)}, headers=tenancy.headers)
    before = _overhead((await client.get("/metrics")).text)
    response = await post_build(client, tenancy, model="gpt-4o", session_id="chat-1", window=WINDOW)
    result = response.json()
    context = result["totals"]["used"] + result["history"]["recalled_tokens"]
    share = context / (context + result["history"]["tokens"])
    total, count = _overhead((await client.get("/metrics")).text)
    assert count == before[1] + 1
    assert abs(total - before[0] - share) < 1e-9
    plain = await post_build(client, tenancy, input="no session")  # no history: not counted
    assert plain.status_code == 200, plain.text
    assert _overhead((await client.get("/metrics")).text)[1] == count


async def test_a_long_session_is_pruned_inside_the_window(
    client: httpx.AsyncClient, tenancy: Tenancy, providers: Providers
) -> None:
    await put_agent(client, tenancy)
    await write(client, tenancy, fact("Redis adds a separate service to run and back up."))
    said = conversation(60)
    appended = await client.post(MESSAGES, json={"messages": said}, headers=tenancy.headers)
    assert appended.status_code == 201, appended.text
    # "Redis" alone is no clear reference to the evicted turns: nothing is recalled.
    response = await post_build(
        client,
        tenancy,
        input="Is Redis worth it?",
        model="gpt-4o",
        session_id="chat-1",
        window=WINDOW,
    )
    assert response.status_code == 200, response.text
    result = response.json()
    messages, history, totals = result["messages"], result["history"], result["totals"]
    window = history["window"]
    assert window["available"] == 1400 - 150 - 50
    assert window["memory_budget"] == totals["budget"] == int(0.1 * 1200)
    assert window["learnings_budget"] == int(0.05 * 1200)
    assert totals["budget_source"] == "window"
    assert totals["used"] == providers.tokens.count(result["context"], "o200k_base") > 0
    assert window["history_budget"] == 1200 - totals["used"]
    # The promise, counted here: the context and the chat request's messages within available.
    assert history["tokens"] == chat_tokens(providers, messages)
    assert totals["used"] + history["tokens"] <= window["available"]
    # Sinks and fresh tail verbatim, the oldest evicted, the rest contiguous up to the tail.
    assert messages[:2] == said[:2]
    assert messages[-6:] == said[-6:]
    kept = len(messages)
    assert history | {"window": None} == {
        "session_id": "chat-1",
        "messages_in_session": 60,
        "fresh_tail": 6,
        "sinks": 2,
        "kept": kept,
        "evicted": 60 - kept,
        "first_kept_seq": 60 - kept + 2,
        "summaries": [],
        "recalled": [],
        "recalled_tokens": 0,
        "shown_by_summary": [],
        "tokens": history["tokens"],
        "window": None,
        "reason": None,
    }
    assert 10 < kept < 50
    assert messages[2:] == said[60 - kept + 2 :]
    # ... and the next older message would not have fitted.
    older = said[60 - kept + 1]
    assert chat_tokens(providers, [older, *messages]) > window["history_budget"]
    assert "history" in result["timings_ms"]
    stored = await client.get(f"/context/{result['context_id']}", headers=tenancy.headers)
    assert stored.json()["messages"] == messages
    assert stored.json()["history"] == history


async def test_a_session_without_messages_builds_with_the_default_window(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    response = await post_build(client, tenancy, session_id="not-yet.said:1")
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["messages"] == []
    history = result["history"]
    assert (history["messages_in_session"], history["kept"], history["evicted"]) == (0, 0, 0)
    assert (history["tokens"], history["first_kept_seq"]) == (0, None)
    assert history["window"] | {"history_budget": 0} == {
        "total": 30000,
        "system_reserve": 2000,
        "tools_reserve": 2000,
        "memory_fraction": 0.15,
        "learnings_fraction": 0.05,
        "fresh_tail": 16,
        "sinks": 2,
        "available": 26000,
        "memory_budget": 3900,
        "learnings_budget": 1300,
        "history_budget": 0,
    }
    assert history["window"]["history_budget"] == 26000 - result["totals"]["used"]
    # `budget` with a session (no window) is the memory context's, within the default window.
    response = await post_build(client, tenancy, session_id="chat-1", budget=300)
    assert response.json()["totals"]["budget"] == 300
    assert response.json()["totals"]["budget_source"] == "request"
    without = (await post_build(client, tenancy, budget=300)).json()
    assert (without["messages"], without["history"]) == (None, None)
    assert "history" not in without["timings_ms"]


async def test_only_the_last_message_when_the_window_is_tight(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    said = conversation(20)
    await client.post(MESSAGES, json={"messages": said}, headers=tenancy.headers)
    tight = {
        "total": 60,
        "system_reserve": 0,
        "tools_reserve": 0,
        "memory_fraction": 0,
        "learnings_fraction": 0,
        "fresh_tail": 4,
        "sinks": 2,
    }
    result = (await post_build(client, tenancy, session_id="chat-1", window=tight)).json()
    assert result["context"] == ""
    assert result["totals"] | {"encoding": None, "candidates": 0} == {
        "budget": 0,
        "budget_source": "window",
        "used": 0,
        "utilization": 0.0,
        "encoding": None,
        "candidates": 0,
    }
    # The tail went oldest first down to the last message, then the newer sink; the system
    # prompt (seq 0) and the last message fit.
    assert result["messages"] == [said[0], said[-1]]
    assert result["history"]["reason"] == (
        "the sinks and the fresh tail do not fit the history's 60 tokens: 3 of the tail and 1 "
        "of the sinks were evicted"
    )
    assert (result["history"]["sinks"], result["history"]["fresh_tail"]) == (1, 1)
    tiny = tight | {"total": 5}
    result = (await post_build(client, tenancy, session_id="chat-1", window=tiny)).json()
    assert result["messages"] == []
    assert result["history"]["reason"] == "not even the last message fits the history's 5 tokens"


async def test_windows_that_cannot_hold_anything_are_refused(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    cases: list[tuple[dict[str, Any], list[str | int], str]] = [
        ({"window": {"total": 3000}}, ["body", "window"], "give session_id"),
        (
            {"session_id": "chat-1", "budget": 500, "window": {"total": 3000}},
            ["body", "window"],
            "give budget or window, not both",
        ),
        (
            {"session_id": "chat-1", "window": {"total": 4000}},
            ["body", "window", "total"],
            "leaves 0 tokens",
        ),
        (
            {"session_id": "chat-1", "window": {"memory_fraction": 0.6, "learnings_fraction": 0.5}},
            ["body", "window", "learnings_fraction"],
            "exceeds 1",
        ),
        ({"session_id": "chat-1", "window": {"memory_fraction": 1.5}}, [], ""),
        ({"session_id": "chat-1", "window": {"fresh_tail": 1001}}, [], ""),
        ({"session_id": "chat-1", "window": {"sinks": -1}}, [], ""),
        ({"session_id": "chat-1", "window": {"total": 0}}, [], ""),
        ({"session_id": "chat-1", "window": {"turns": 3}}, [], ""),
        ({"session_id": "bad id"}, ["body", "session_id"], ""),
    ]
    for body, loc, words in cases:
        response = await post_build(client, tenancy, **body)
        assert response.status_code == 422, (body, response.text)
        errors = response.json()["errors"]
        assert any(error["loc"][: len(loc)] == loc for error in errors), (body, errors)
        assert words in response.json()["detail"], (body, response.json()["detail"])


async def test_another_tenants_session_is_never_read(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    await client.post(MESSAGES, json={"messages": conversation(5)}, headers=tenancy.headers)
    response = await post_build(client, other_tenancy, session_id="chat-1", window=WINDOW)
    assert response.status_code == 404, response.text
    # Its own agent of the same name has no such session.
    await put_agent(client, other_tenancy)
    response = await post_build(client, other_tenancy, session_id="chat-1", window=WINDOW)
    assert response.json()["messages"] == []
    assert response.json()["history"]["messages_in_session"] == 0
