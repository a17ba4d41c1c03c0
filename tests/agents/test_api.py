"""Agents: identity, working memory, defaults; invisible to other tenants."""

import httpx

from tests.factories import Tenancy, put_agent


async def test_put_then_get_agent(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    body = {
        "identity": {
            "name": "Newton",
            "traits": ["analytical", "cautious"],
            "core_rules": ["Record decisions before acting."],
        },
        "default_budget": 6000,
        "model": "gpt-4o",
    }
    created = await client.put("/agents/newton", json=body, headers=tenancy.headers)
    assert created.status_code == 200
    read = await client.get("/agents/newton", headers=tenancy.headers)
    agent = read.json()
    assert agent["identity"]["traits"] == ["analytical", "cautious"]
    assert (agent["default_budget"], agent["model"]) == (6000, "gpt-4o")


async def test_working_memory_survives_identity_update(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    focus = {"current_task": "Design the storage layer", "open_threads": ["Redis or not?"]}
    response = await client.put(
        "/agents/newton/working-memory", json=focus, headers=tenancy.headers
    )
    assert response.json()["working_memory"] == focus
    await client.put(
        "/agents/newton", json={"identity": {"name": "Newton II"}}, headers=tenancy.headers
    )
    agent = (await client.get("/agents/newton", headers=tenancy.headers)).json()
    assert agent["identity"]["name"] == "Newton II"
    assert agent["working_memory"] == focus


async def test_agent_of_another_tenant_is_not_found(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    response = await client.get("/agents/newton", headers=other_tenancy.headers)
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert "PUT /agents/newton" in response.json()["detail"]


async def test_invalid_agent_id_and_body_are_rejected(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    bad_id = await client.put(
        "/agents/bad%20id", json={"identity": {"name": "x"}}, headers=tenancy.headers
    )
    assert bad_id.status_code == 422
    assert bad_id.json()["errors"][0]["loc"] == ["path", "agent_id"]
    bad_budget = await client.put(
        "/agents/newton",
        json={"identity": {"name": "x"}, "default_budget": 5},
        headers=tenancy.headers,
    )
    assert bad_budget.status_code == 422
    assert bad_budget.json()["errors"][0]["loc"] == ["body", "default_budget"]
    assert (await client.get("/agents/newton", headers=tenancy.headers)).status_code == 404
