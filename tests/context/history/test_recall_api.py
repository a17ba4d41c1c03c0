"""POST /context/build with a session: evicted messages the input clearly refers to come back
into the context, whole, inside the same hard budget."""

from typing import Any

import httpx

from app.providers.container import Providers
from tests.context.history.test_history_api import (
    MESSAGES,
    WINDOW,
    chat_tokens,
    conversation,
    post_build,
)
from tests.factories import Tenancy, put_agent

PASSWORD = {
    "role": "user",
    "content": "The staging database password rotates every Tuesday at 09:00.",
    "created_at": "2026-11-20T10:00:00Z",
}
RECALLED_LINE = "- [seq 3, user, 2026-11-20] " + PASSWORD["content"]
SECTION = "## Earlier in this conversation\n" + RECALLED_LINE
QUESTION = "When does the staging database password rotate?"


def with_password(length: int) -> list[dict[str, Any]]:
    """The test conversation with a user's distinctive message at seq 3."""
    said = conversation(length)
    said[3] = PASSWORD
    return said


def sent(message: dict[str, Any]) -> dict[str, Any]:
    """A message as the build returns it (the chat format, without its time)."""
    return {key: value for key, value in message.items() if key != "created_at"}


async def start(
    client: httpx.AsyncClient, tenancy: Tenancy, said: list[dict[str, Any]], path: str = MESSAGES
) -> list[dict[str, Any]]:
    """The agent, and the session at `path` holding `said`."""
    await put_agent(client, tenancy)
    appended = await client.post(path, json={"messages": said}, headers=tenancy.headers)
    assert appended.status_code == 201, appended.text
    return said


async def build(
    client: httpx.AsyncClient, tenancy: Tenancy, text: str, window: dict[str, Any]
) -> dict[str, Any]:
    response = await post_build(
        client, tenancy, input=text, model="gpt-4o", session_id="chat-1", window=window
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def assert_promise(providers: Providers, result: dict[str, Any]) -> int:
    """The context recounted and the messages as a chat request within available; the
    context's tokens."""
    history, used = result["history"], result["totals"]["used"]
    context = providers.tokens.count(result["context"], "o200k_base")
    assert context == used + history["recalled_tokens"]
    assert history["tokens"] == chat_tokens(providers, result["messages"])
    assert history["window"]["history_budget"] == history["window"]["available"] - context
    assert context + history["tokens"] <= history["window"]["available"]
    return context


async def test_an_evicted_message_the_input_refers_to_comes_back(
    client: httpx.AsyncClient, tenancy: Tenancy, providers: Providers
) -> None:
    said = await start(client, tenancy, with_password(60))
    result = await build(client, tenancy, QUESTION, WINDOW)
    history, messages = result["history"], result["messages"]
    assert result["context"].endswith("\n\n" + SECTION)
    (recalled,) = history["recalled"]
    assert recalled | {"score": None} == {
        "seq": 3,
        "role": "user",
        "tokens": providers.tokens.count(RECALLED_LINE, "o200k_base") + 1,
        "score": None,
        "by": "words",
        "similarity": None,  # not embedded yet: no worker ran
    }
    assert recalled["score"] > 0
    assert history["recalled_tokens"] > recalled["tokens"]  # the header too
    assert_promise(providers, result)
    # It is recalled, not kept: evicted, and the sinks and fresh tail are still whole.
    assert history["evicted"] == 60 - len(messages)
    assert history["first_kept_seq"] > 3
    assert messages[:2] == said[:2]
    assert messages[-6:] == said[-6:]
    assert "recall" in result["timings_ms"]
    stored = await client.get(f"/context/{result['context_id']}", headers=tenancy.headers)
    assert stored.json()["history"] == history
    assert stored.json()["context"] == result["context"]
    # Sharing one word ("staging") is no clear reference: nothing comes back.
    result = await build(client, tenancy, "Is the staging server slow today?", WINDOW)
    assert result["history"]["recalled"] == []
    assert result["history"]["recalled_tokens"] == 0
    assert "Earlier in this conversation" not in result["context"]
    assert_promise(providers, result)


async def test_a_recalled_message_comes_whole_or_not_at_all(
    client: httpx.AsyncClient, tenancy: Tenancy, providers: Providers
) -> None:
    said = await start(client, tenancy, with_password(60))
    # No memory context: the window holds the sinks, the fresh tail and exactly the section.
    protected = chat_tokens(providers, [sent(m) for m in [*said[:2], *said[-6:]]])
    section = providers.tokens.count(SECTION, "o200k_base")
    exact = {
        "total": protected + section,
        "system_reserve": 0,
        "tools_reserve": 0,
        "memory_fraction": 0,
        "learnings_fraction": 0,
        "fresh_tail": 6,
        "sinks": 2,
    }
    result = await build(client, tenancy, QUESTION, exact)
    assert result["context"] == SECTION
    assert [m["seq"] for m in result["history"]["recalled"]] == [3]
    assert assert_promise(providers, result) + result["history"]["tokens"] == exact["total"]
    assert result["messages"] == [*said[:2], *said[-6:]]
    # One token less: the message does not fit, and is not cut to fit.
    result = await build(client, tenancy, QUESTION, exact | {"total": exact["total"] - 1})
    assert result["context"] == ""
    assert result["history"]["recalled"] == []
    assert_promise(providers, result)


async def test_nothing_is_recalled_when_nothing_was_evicted(
    client: httpx.AsyncClient, tenancy: Tenancy, providers: Providers
) -> None:
    said = await start(client, tenancy, with_password(8))
    result = await build(client, tenancy, QUESTION, WINDOW)
    assert result["messages"] == [sent(m) for m in said]
    assert (result["history"]["evicted"], result["history"]["recalled"]) == (0, [])
    assert "Earlier in this conversation" not in result["context"]
    assert "recall" not in result["timings_ms"]
    assert_promise(providers, result)


async def test_another_sessions_message_is_never_recalled(
    client: httpx.AsyncClient, tenancy: Tenancy, providers: Providers
) -> None:
    await start(client, tenancy, with_password(60), "/agents/newton/sessions/chat-2/messages")
    await client.post(MESSAGES, json={"messages": conversation(60)}, headers=tenancy.headers)
    result = await build(client, tenancy, QUESTION, WINDOW)
    assert result["history"]["evicted"] > 0
    assert result["history"]["recalled"] == []
    assert "password" not in result["context"]
    assert_promise(providers, result)
