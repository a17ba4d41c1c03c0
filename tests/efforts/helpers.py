"""Calls the effort tests share: open, say, conclude, build, over the app's HTTP API."""

from typing import Any

import httpx

from app.providers.container import Providers
from tests.context.history.test_summaries_api import keeps_the_promise
from tests.factories import Tenancy

SESSION = "/agents/newton/sessions/work-1"
EFFORTS = f"{SESSION}/efforts"
WINDOW = {
    "total": 6000,
    "system_reserve": 100,
    "tools_reserve": 100,
    "memory_fraction": 0.05,
    "learnings_fraction": 0.0,
    "fresh_tail": 4,
    "sinks": 0,
}


async def open_effort(
    client: httpx.AsyncClient, tenancy: Tenancy, title: str, goal: str | None = None
) -> str:
    body = {"title": title} | ({"goal": goal} if goal else {})
    response = await client.post(EFFORTS, json=body, headers=tenancy.headers)
    assert response.status_code == 201, response.text
    effort_id: str = response.json()["effort_id"]
    return effort_id


async def say(client: httpx.AsyncClient, tenancy: Tenancy, *messages: tuple[str, str]) -> None:
    """Append (role, content) messages in order."""
    body = {"messages": [{"role": role, "content": content} for role, content in messages]}
    response = await client.post(f"{SESSION}/messages", json=body, headers=tenancy.headers)
    assert response.status_code == 201, response.text


async def act(
    client: httpx.AsyncClient, tenancy: Tenancy, effort_id: str, action: str
) -> httpx.Response:
    return await client.post(f"{EFFORTS}/{effort_id}/{action}", headers=tenancy.headers)


async def efforts(client: httpx.AsyncClient, tenancy: Tenancy) -> dict[str, dict[str, Any]]:
    """The session's efforts by id."""
    response = await client.get(EFFORTS, headers=tenancy.headers)
    assert response.status_code == 200, response.text
    return {item["effort_id"]: item for item in response.json()["items"]}


async def build(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    providers: Providers,
    text: str = "Go on.",
    **window: int,
) -> dict[str, Any]:
    """A build with the session (`window`: fields other than WINDOW's), checked against the
    promise."""
    response = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={
            "agent_id": "newton",
            "input": text,
            "model": "gpt-4o",
            "session_id": "work-1",
            "window": WINDOW | window,
        },
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    keeps_the_promise(providers, result)
    return result


def shown(result: dict[str, Any]) -> dict[str, str]:
    """How the build showed each effort, by id."""
    return {e["effort_id"]: e["shown"] for e in result["history"]["efforts"]["efforts"]}


def working_tokens(result: dict[str, Any]) -> int:
    """Working memory: the efforts' part of the context and the history's messages."""
    history = result["history"]
    return int(history["efforts"]["tokens"]) + int(history["tokens"])
