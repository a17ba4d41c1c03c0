"""GET /agents/{agent_id}/sessions: an agent's sessions, newest first, each as GET of the
session reads it (counts, tokens, first and last message times, summaries)."""

from typing import Any

import httpx

from app.core.worker import Worker
from tests.factories import Tenancy, put_agent

SESSIONS = "/agents/newton/sessions"


async def _say(client: httpx.AsyncClient, tenancy: Tenancy, session: str, *texts: str) -> None:
    messages = [
        {"role": "user" if n % 2 == 0 else "assistant", "content": content}
        for n, content in enumerate(texts)
    ]
    response = await client.post(
        f"{SESSIONS}/{session}/messages", json={"messages": messages}, headers=tenancy.headers
    )
    assert response.status_code == 201, response.text


async def _page(client: httpx.AsyncClient, tenancy: Tenancy, **params: str | int) -> dict[str, Any]:
    response = await client.get(SESSIONS, params=params, headers=tenancy.headers)
    assert response.status_code == 200, response.text
    page: dict[str, Any] = response.json()
    return page


async def test_sessions_are_listed_newest_first_with_their_counts(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    # Past the fresh tail (16) by a span (20): its older messages get a summary.
    await _say(client, tenancy, "chat-1", *(f"Note {n} on the disks." for n in range(40)))
    await _say(client, tenancy, "chat-2", "Hi.", "Hello, how can I help?", "Restart it.")
    opened = await client.post(
        f"{SESSIONS}/chat-3/efforts", json={"title": "Plan"}, headers=tenancy.headers
    )
    assert opened.status_code == 201, opened.text  # a session with no message yet
    await worker.drain()  # chat-1's summary

    whole = await _page(client, tenancy)

    assert [s["session_id"] for s in whole["items"]] == ["chat-3", "chat-2", "chat-1"]
    assert whole["next_cursor"] is None
    # Each item is the session as its own GET reads it.
    for item in whole["items"]:
        read = await client.get(f"{SESSIONS}/{item['session_id']}", headers=tenancy.headers)
        assert read.json() == item
    chat3, chat2, chat1 = whole["items"]
    assert (chat3["messages"], chat3["tokens"]) == (0, 0)
    assert (chat3["first_message_at"], chat3["last_message_at"]) == (None, None)
    assert chat2["messages"] == 3
    assert chat2["first_message_at"] <= chat2["last_message_at"]
    assert chat2["summaries"] == []
    assert (chat1["messages"], chat1["agent_id"]) == (40, "newton")
    spans = [(s["depth"], s["first_seq"], s["last_seq"]) for s in chat1["summaries"]]
    assert spans == [(1, 0, 19)]

    first = await _page(client, tenancy, limit=2)
    assert [s["session_id"] for s in first["items"]] == ["chat-3", "chat-2"]
    second = await _page(client, tenancy, limit=2, cursor=first["next_cursor"])
    assert [s["session_id"] for s in second["items"]] == ["chat-1"]
    assert second["next_cursor"] is None
    assert await _page(client, tenancy, cursor="0_chat-1") == {"items": [], "next_cursor": None}


async def test_sessions_of_an_unknown_or_foreign_agent_are_404(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    await _say(client, tenancy, "chat-1", "Hello.")
    foreign = await client.get(SESSIONS, headers=other_tenancy.headers)
    assert foreign.status_code == 404
    assert foreign.headers["content-type"] == "application/problem+json"
    unknown = await client.get("/agents/nobody/sessions", headers=tenancy.headers)
    assert unknown.status_code == 404
    assert "PUT /agents/nobody" in unknown.json()["detail"]
    await put_agent(client, tenancy, "ada")
    assert await _page_of(client, tenancy, "ada") == {"items": [], "next_cursor": None}
    for params in ({"cursor": "chat-1"}, {"cursor": "1_"}, {"limit": 0}):
        bad = await client.get(SESSIONS, params=params, headers=tenancy.headers)
        assert bad.status_code == 422, params
        assert bad.json()["errors"][0]["loc"][0] == "query"


async def _page_of(client: httpx.AsyncClient, tenancy: Tenancy, agent: str) -> dict[str, Any]:
    response = await client.get(f"/agents/{agent}/sessions", headers=tenancy.headers)
    assert response.status_code == 200, response.text
    page: dict[str, Any] = response.json()
    return page
