"""Messages appended to a session and read back in conversation order."""

from typing import Any

import httpx

from app.providers.container import Providers
from tests.factories import Tenancy, put_agent

MESSAGES = "/agents/newton/sessions/chat-1/messages"
SESSION = "/agents/newton/sessions/chat-1"


def say(content: str, role: str = "user", **extra: Any) -> dict[str, Any]:
    return {"role": role, "content": content, **extra}


async def append(
    client: httpx.AsyncClient, tenancy: Tenancy, *messages: dict[str, Any]
) -> dict[str, Any]:
    response = await client.post(
        MESSAGES, json={"messages": list(messages)}, headers=tenancy.headers
    )
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()
    return result


async def all_messages(
    client: httpx.AsyncClient, tenancy: Tenancy, limit: int | None = None
) -> list[dict[str, Any]]:
    """Every message, page after page."""
    found: list[dict[str, Any]] = []
    params: dict[str, int] = {"limit": limit} if limit else {}
    while True:
        page = await client.get(MESSAGES, params=params, headers=tenancy.headers)
        assert page.status_code == 200, page.text
        found += page.json()["items"]
        if page.json()["next_cursor"] is None:
            return found
        params["cursor"] = page.json()["next_cursor"]


async def test_appends_are_listed_in_order_across_calls(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    first = await append(
        client,
        tenancy,
        say("You are terse.", "system"),
        say("Which database do we use?", name="ada"),
    )
    second = await append(
        client,
        tenancy,
        say("PostgreSQL.", "assistant"),
        say("deploy 412 green", "tool", tool_call_id="call_1"),
    )
    assert [m["seq"] for m in first["messages"]] == [0, 1]
    assert [m["seq"] for m in second["messages"]] == [2, 3]
    assert second["session"]["messages"] == 4
    listed = await all_messages(client, tenancy)
    assert [(m["seq"], m["role"], m["content"]) for m in listed] == [
        (0, "system", "You are terse."),
        (1, "user", "Which database do we use?"),
        (2, "assistant", "PostgreSQL."),
        (3, "tool", "deploy 412 green"),
    ]
    assert listed[1]["name"] == "ada"
    assert listed[3]["tool_call_id"] == "call_1"
    assert listed == first["messages"] + second["messages"]


async def test_session_counts_messages_and_their_tokens(
    client: httpx.AsyncClient, tenancy: Tenancy, providers: Providers
) -> None:
    await put_agent(client, tenancy)
    contents = ["Hello there.", "Summarize the incident of 3 March in two lines, please."]
    said_at = "2026-03-03T10:00:00Z"
    written = await append(client, tenancy, say(contents[0], created_at=said_at))
    await append(client, tenancy, say(contents[1]))
    session = (await client.get(SESSION, headers=tenancy.headers)).json()
    expected = [providers.tokens.count(content) for content in contents]
    assert written["messages"][0]["tokens"] == expected[0]
    assert session["messages"] == 2
    assert session["tokens"] == sum(expected)
    assert session["session_id"] == "chat-1"
    assert session["agent_id"] == "newton"
    assert session["summaries"] == []
    assert session["first_message_at"] == "2026-03-03T10:00:00Z"
    assert session["last_message_at"] == session["updated_at"]
    assert session["created_at"] == written["session"]["created_at"]


async def test_pages_walk_every_message_once(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    await put_agent(client, tenancy)
    for turn in range(3):
        await append(client, tenancy, *(say(f"turn {turn} message {i}") for i in range(4)))
    listed = await all_messages(client, tenancy, limit=5)
    assert [m["seq"] for m in listed] == list(range(12))
    after = await client.get(MESSAGES, params={"cursor": 9}, headers=tenancy.headers)
    assert [m["seq"] for m in after.json()["items"]] == [10, 11]
    assert after.json()["next_cursor"] is None


async def test_retry_with_same_key_returns_first_response(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    headers = {**tenancy.headers, "Idempotency-Key": "turn-7"}
    body = {"messages": [say("hi"), say("hello", "assistant")]}
    first = await client.post(MESSAGES, json=body, headers=headers)
    second = await client.post(MESSAGES, json=body, headers=headers)
    assert (first.status_code, second.status_code) == (201, 201)
    assert second.json() == first.json()
    other = await client.post(MESSAGES, json={"messages": [say("else")]}, headers=headers)
    assert other.status_code == 409
    assert other.headers["content-type"] == "application/problem+json"
    assert len(await all_messages(client, tenancy)) == 2


async def test_another_tenant_sees_nothing(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    await append(client, tenancy, say("secret"))
    for response in (
        await client.get(SESSION, headers=other_tenancy.headers),
        await client.get(MESSAGES, headers=other_tenancy.headers),
        await client.post(MESSAGES, json={"messages": [say("x")]}, headers=other_tenancy.headers),
    ):
        assert response.status_code == 404, response.text
        assert response.headers["content-type"] == "application/problem+json"
    assert len(await all_messages(client, tenancy)) == 1


async def test_unknown_agent_and_session_are_404(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    written = await client.post(MESSAGES, json={"messages": [say("hi")]}, headers=tenancy.headers)
    assert written.status_code == 404
    assert "PUT /agents/newton" in written.json()["detail"]
    await put_agent(client, tenancy)
    for path in (SESSION, MESSAGES):
        response = await client.get(path, headers=tenancy.headers)
        assert response.status_code == 404
        assert "chat-1" in response.json()["detail"]


async def test_each_session_numbers_its_own_messages(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    await append(client, tenancy, say("one"), say("two"))
    other = await client.post(
        "/agents/newton/sessions/chat-2/messages",
        json={"messages": [say("three")]},
        headers=tenancy.headers,
    )
    assert other.json()["messages"][0]["seq"] == 0
    assert other.json()["session"]["messages"] == 1


async def test_times_are_answered_in_utc(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    await put_agent(client, tenancy)
    written = await append(client, tenancy, say("hi", created_at="2026-03-03T12:00:00+02:00"))
    assert written["messages"][0]["created_at"] == "2026-03-03T10:00:00Z"
    assert written["session"]["first_message_at"] == "2026-03-03T10:00:00Z"
    assert (await all_messages(client, tenancy)) == written["messages"]
