"""POST /context/refresh of a build with a session: token pressure is counted against the
session's real history, and the rebuild keeps the session and the window."""

from typing import Any

import httpx

from app.providers.container import Providers
from tests.context.history.test_history_api import MESSAGES, WINDOW, chat_tokens, conversation
from tests.context.history.test_recall_api import build, start
from tests.factories import Tenancy

QUESTION = "Should we use Redis for caching?"


async def refresh(client: httpx.AsyncClient, tenancy: Tenancy, **body: Any) -> dict[str, Any]:
    response = await client.post(
        "/context/refresh", headers=tenancy.headers, json={"input": QUESTION, **body}
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def append(client: httpx.AsyncClient, tenancy: Tenancy, said: list[dict[str, Any]]) -> None:
    response = await client.post(MESSAGES, json={"messages": said}, headers=tenancy.headers)
    assert response.status_code == 201, response.text


async def test_appended_messages_that_no_longer_fit_are_token_pressure(
    client: httpx.AsyncClient, tenancy: Tenancy, providers: Providers
) -> None:
    said = await start(client, tenancy, conversation(12))
    first = await build(client, tenancy, QUESTION, WINDOW)
    history, window = first["history"], first["history"]["window"]
    assert history["evicted"] == 0
    room = window["history_budget"] - history["tokens"]
    assert room > 20
    # Nothing appended: the context still fits.
    same = await refresh(client, tenancy, context_id=first["context_id"])
    assert (same["refreshed"], same["reasons"]) == (False, [])
    # A short reply fits with what the build sent: no reason to rebuild either.
    await append(client, tenancy, [{"role": "assistant", "content": "Not yet."}])
    short = await refresh(client, tenancy, context_id=first["context_id"])
    assert (short["refreshed"], short["reasons"]) == (False, [])
    # Many more turns: the context, the messages sent and the new ones exceed available.
    more = conversation(60)[13:]
    await append(client, tenancy, more)
    pressed = await refresh(client, tenancy, context_id=first["context_id"])
    assert (pressed["refreshed"], pressed["reasons"]) == (True, ["token_pressure"])
    rebuilt = pressed["build"]
    # The same session and window; the history pruned again, the new turns in it.
    assert rebuilt["parent_id"] == first["context_id"]
    assert rebuilt["history"]["session_id"] == "chat-1"
    assert rebuilt["history"]["window"] == window | {
        "history_budget": rebuilt["history"]["window"]["history_budget"]
    }
    assert rebuilt["history"]["messages_in_session"] == len(said) + 1 + len(more)
    assert rebuilt["history"]["evicted"] > 0
    assert rebuilt["messages"][-6:] == more[-6:]
    used = providers.tokens.count(rebuilt["context"], "o200k_base")
    assert rebuilt["history"]["tokens"] == chat_tokens(providers, rebuilt["messages"])
    assert used + rebuilt["history"]["tokens"] <= window["available"]
    # The rebuild fits the session as it is now.
    again = await refresh(client, tenancy, context_id=rebuilt["context_id"])
    assert (again["refreshed"], again["reasons"]) == (False, [])


async def test_a_refresh_budget_keeps_the_window_and_can_be_refreshed_again(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await start(client, tenancy, conversation(12))
    first = await build(client, tenancy, QUESTION, WINDOW)
    budget = first["totals"]["used"] - 1
    smaller = await refresh(client, tenancy, context_id=first["context_id"], budget=budget)
    assert smaller["reasons"] == ["token_pressure"]
    rebuilt = smaller["build"]
    assert (rebuilt["totals"]["budget"], rebuilt["totals"]["budget_source"]) == (budget, "request")
    assert rebuilt["totals"]["used"] <= budget
    assert rebuilt["history"]["window"]["total"] == WINDOW["total"]
    again = await refresh(client, tenancy, context_id=rebuilt["context_id"])
    assert (again["refreshed"], again["reasons"]) == (False, [])
