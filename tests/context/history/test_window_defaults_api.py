"""An agent's window defaults: a build with a session takes each field from the request's window,
else the agent's defaults, else the settings; defaults that leave no room answer 409."""

from typing import Any

import httpx

from tests.context.history.test_history_api import MESSAGES, conversation, post_build
from tests.factories import Tenancy

IDENTITY = {"name": "Newton"}
DEFAULTS = {"total": 3000, "system_reserve": 500, "tools_reserve": 500, "fresh_tail": 4}


async def put_agent(
    client: httpx.AsyncClient, tenancy: Tenancy, default_window: dict[str, Any] | None
) -> dict[str, Any]:
    body: dict[str, Any] = {"identity": IDENTITY}
    if default_window is not None:
        body["default_window"] = default_window
    response = await client.put("/agents/newton", json=body, headers=tenancy.headers)
    assert response.status_code == 200, response.text
    agent: dict[str, Any] = response.json()
    return agent


async def window_of(client: httpx.AsyncClient, tenancy: Tenancy, **body: Any) -> dict[str, Any]:
    response = await post_build(client, tenancy, session_id="chat-1", **body)
    assert response.status_code == 200, response.text
    window: dict[str, Any] = response.json()["history"]["window"]
    return window


def builds_served(metrics: str) -> float:
    prefix = 'ce_context_build_seconds_count{stage="total"} '
    return next(
        float(line[len(prefix) :]) for line in metrics.splitlines() if line.startswith(prefix)
    )


async def test_a_build_takes_the_agents_defaults_and_the_request_overrides_them(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    agent = await put_agent(client, tenancy, DEFAULTS)
    assert agent["default_window"] == DEFAULTS | {
        "memory_fraction": None,
        "learnings_fraction": None,
        "sinks": None,
    }
    read = await client.get("/agents/newton", headers=tenancy.headers)
    assert read.json()["default_window"] == agent["default_window"]
    await client.post(MESSAGES, json={"messages": conversation(12)}, headers=tenancy.headers)
    # The agent's fields, the settings' for the others.
    window = await window_of(client, tenancy)
    assert window | {"history_budget": None} == DEFAULTS | {
        "memory_fraction": 0.15,
        "learnings_fraction": 0.05,
        "sinks": 2,
        "available": 2000,
        "memory_budget": 300,
        "learnings_budget": 100,
        "history_budget": None,
    }
    # The request's fields win, field by field.
    window = await window_of(client, tenancy, window={"total": 5000, "fresh_tail": 8})
    assert (window["total"], window["fresh_tail"], window["system_reserve"]) == (5000, 8, 500)
    assert window["available"] == 4000
    # A build without a session has no window: the defaults change nothing there.
    plain = await post_build(client, tenancy)
    assert plain.json()["history"] is None
    # PUT replaces the agent's defaults: without any, the settings again.
    assert (await put_agent(client, tenancy, None))["default_window"] is None
    assert (await window_of(client, tenancy))["total"] == 30000


async def test_defaults_that_leave_no_room_answer_409_naming_the_field(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    # Each field is valid on its own, so the agent takes them; the settings' reserves
    # (2,000 + 2,000) leave a total of 3,000 no token.
    await put_agent(client, tenancy, {"total": 3000})
    before = builds_served((await client.get("/metrics")).text)
    response = await post_build(client, tenancy, session_id="chat-1")
    assert response.status_code == 409, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["detail"] == (
        "window.total: total 3000 - system_reserve 2000 - tools_reserve 2000 leaves -1000 "
        "tokens; at least 1 must be left for the context and history (total from the "
        "default_window of agent 'newton'; system_reserve, tools_reserve from the settings). "
        "Give window.total in the request's window, or PUT /agents/newton with a "
        "default_window that leaves room."
    )
    assert [error["loc"] for error in problem["errors"]] == [["agent", "default_window", "total"]]
    # Nothing was built or stored, and the agent keeps its defaults.
    assert builds_served((await client.get("/metrics")).text) == before
    agent = (await client.get("/agents/newton", headers=tenancy.headers)).json()
    assert agent["default_window"]["total"] == 3000
    # The request's own total settles it; a build without a session never had a window.
    assert (await window_of(client, tenancy, window={"total": 8000}))["available"] == 4000
    assert (await post_build(client, tenancy)).status_code == 200
    # Fractions over 1: the agent's field is named, not the request's.
    await put_agent(client, tenancy, {"learnings_fraction": 0.5})
    response = await post_build(
        client, tenancy, session_id="chat-1", window={"memory_fraction": 0.9}
    )
    assert response.status_code == 409, response.text
    assert (
        "(learnings_fraction from the default_window of agent 'newton'; memory_fraction from "
        "the request)"
    ) in response.json()["detail"]
    assert response.json()["errors"][0]["loc"] == ["agent", "default_window", "learnings_fraction"]
    # A fault of the request's window and the settings alone stays the request's: 422.
    response = await post_build(client, tenancy, session_id="chat-1", window={"total": 4000})
    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["loc"] == ["body", "window", "total"]


async def test_a_refresh_rebuilds_with_the_agents_defaults_as_they_are_now(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy, DEFAULTS)
    first = (await post_build(client, tenancy, session_id="chat-1")).json()
    await put_agent(client, tenancy, {"total": 3000})
    body = {"context_id": first["context_id"], "input": "And now?", "decision_point": True}
    response = await client.post("/context/refresh", headers=tenancy.headers, json=body)
    assert response.status_code == 409, response.text
    assert "PUT /agents/newton" in response.json()["detail"]


async def test_another_tenants_agent_and_its_defaults_are_not_found(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy, DEFAULTS)
    assert (await client.get("/agents/newton", headers=other_tenancy.headers)).status_code == 404
    response = await post_build(client, other_tenancy, session_id="chat-1")
    assert response.status_code == 404, response.text
    # Its own agent of the same name has none of them.
    assert (await put_agent(client, other_tenancy, None))["default_window"] is None
    assert (await window_of(client, other_tenancy))["total"] == 30000
