"""Bad messages are 422 problem+json naming the field at fault, and store nothing."""

from typing import Any

import httpx
import pytest

from app.core.config import Settings
from tests.factories import Tenancy, put_agent
from tests.sessions.test_messages_api import MESSAGES, SESSION, say

BAD = [
    ({"messages": []}, ["body", "messages"]),
    ({"messages": [say("hi", "robot")]}, ["body", "messages", 0]),
    ({"messages": [say("hi"), say("")]}, ["body", "messages", 1, "user", "content"]),
    ({"messages": [say("result", "tool")]}, ["body", "messages", 0, "tool", "tool_call_id"]),
    (
        {"messages": [say("hi", tool_call_id="call_1")]},
        ["body", "messages", 0, "user", "tool_call_id"],
    ),
    ({"messages": [say("hi", name="Ada Lovelace")]}, ["body", "messages", 0, "user", "name"]),
    ({"messages": [say("a\u0000b")]}, ["body", "messages", 0, "user", "content"]),
    (
        {"messages": [say("hi", created_at="yesterday")]},
        ["body", "messages", 0, "user", "created_at"],
    ),
]


async def _nothing_stored(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    response = await client.get(SESSION, headers=tenancy.headers)
    assert response.status_code == 404


@pytest.mark.parametrize(("body", "loc"), BAD)
async def test_bad_message_is_422_naming_the_field(
    client: httpx.AsyncClient, tenancy: Tenancy, body: dict[str, Any], loc: list[object]
) -> None:
    await put_agent(client, tenancy)
    response = await client.post(MESSAGES, json=body, headers=tenancy.headers)
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["errors"][0]["loc"] == loc
    await _nothing_stored(client, tenancy)


async def test_session_id_over_200_characters_is_422(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    path = f"/agents/newton/sessions/{'s' * 201}/messages"
    response = await client.post(path, json={"messages": [say("hi")]}, headers=tenancy.headers)
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"] == ["path", "session_id"]
    fits = await client.post(
        f"/agents/newton/sessions/{'s' * 200}/messages",
        json={"messages": [say("hi")]},
        headers=tenancy.headers,
    )
    assert fits.status_code == 201


async def test_append_over_the_batch_limit_is_refused(
    client: httpx.AsyncClient, tenancy: Tenancy, settings: Settings
) -> None:
    await put_agent(client, tenancy)
    messages = [say(f"message {i}") for i in range(settings.api.batch_max_items + 1)]
    response = await client.post(MESSAGES, json={"messages": messages}, headers=tenancy.headers)
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"] == ["body", "messages"]
    assert "CE_API__BATCH_MAX_ITEMS" in response.json()["detail"]
    await _nothing_stored(client, tenancy)
