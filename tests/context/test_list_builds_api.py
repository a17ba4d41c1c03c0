"""GET /context?agent_id=: an agent's latest builds, newest first, of its tenant only."""

import httpx

from tests.factories import Tenancy, fact, put_agent, write


async def _build(client: httpx.AsyncClient, tenancy: Tenancy, text: str) -> str:
    body = {"agent_id": "newton", "input": text, "budget": 500}
    response = await client.post("/context/build", json=body, headers=tenancy.headers)
    assert response.status_code == 200, response.text
    context_id: str = response.json()["context_id"]
    return context_id


async def test_lists_the_latest_builds_newest_first(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    memory = await write(client, tenancy, fact("Invoices are archived after seven years."))
    older = await _build(client, tenancy, "How long are invoices archived?")
    newer = await _build(client, tenancy, "Where do invoices go?")
    rated = await client.post(
        f"/context/{older}/feedback",
        json={"used_memory_ids": [memory["id"]]},
        headers=tenancy.headers,
    )
    assert rated.status_code == 200, rated.text

    response = await client.get("/context", params={"agent_id": "newton"}, headers=tenancy.headers)
    assert response.status_code == 200, response.text
    items = response.json()["items"]
    assert [item["context_id"] for item in items] == [newer, older]
    assert items[1]["input"] == "How long are invoices archived?"
    assert items[1]["budget"] == 500
    assert 0 < items[1]["used"] <= 500
    assert items[1]["precision"] == rated.json()["precision"]
    assert items[0]["precision"] is None

    one = await client.get(
        "/context", params={"agent_id": "newton", "limit": 1}, headers=tenancy.headers
    )
    assert [item["context_id"] for item in one.json()["items"]] == [newer]
    assert one.json()["next_cursor"]  # a second build waits on the next page
    assert response.json()["next_cursor"] is None  # everything fit in the first page


async def test_pages_follow_each_other_with_the_cursor(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    made = [await _build(client, tenancy, f"Question {n}?") for n in range(5)]
    listed: list[str] = []
    params: dict[str, str | int] = {"agent_id": "newton", "limit": 2}
    for _ in range(5):
        page = (await client.get("/context", params=params, headers=tenancy.headers)).json()
        listed += [item["context_id"] for item in page["items"]]
        if page["next_cursor"] is None:
            break
        params["cursor"] = page["next_cursor"]
    assert listed == made[::-1]  # every build once, newest first, a page after another


async def test_another_tenants_agent_is_not_found(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    await _build(client, tenancy, "Anything?")
    response = await client.get(
        "/context", params={"agent_id": "newton"}, headers=other_tenancy.headers
    )
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"


async def test_bad_query_is_named(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    cases: list[dict[str, str | int]] = [
        {},
        {"agent_id": "newton", "limit": 0},
        {"agent_id": "../x"},
        {"agent_id": "newton", "cursor": "not-a-position"},
    ]
    for params in cases:
        response = await client.get("/context", params=params, headers=tenancy.headers)
        assert response.status_code == 422, (params, response.text)
