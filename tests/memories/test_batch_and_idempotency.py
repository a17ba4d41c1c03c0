"""Batches are all-or-nothing; Idempotency-Key makes retries safe."""

import httpx

from app.core.config import Settings
from tests.factories import Tenancy, fact, put_agent


async def count(client: httpx.AsyncClient, tenancy: Tenancy) -> int:
    page = await client.get(
        "/agents/newton/memories", params={"limit": 200}, headers=tenancy.headers
    )
    return len(page.json()["items"])


async def test_one_bad_item_rejects_the_whole_batch(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    items = [fact(f"fact {i}") for i in range(5)]
    items[3]["confidence"] = 1.5
    response = await client.post(
        "/agents/newton/memories/batch", json={"memories": items}, headers=tenancy.headers
    )
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"] == ["body", "memories", 3, "fact", "confidence"]
    assert await count(client, tenancy) == 0


async def test_batch_over_the_limit_is_refused(
    client: httpx.AsyncClient, tenancy: Tenancy, settings: Settings
) -> None:
    await put_agent(client, tenancy)
    items = [fact(f"fact {i}") for i in range(settings.api.batch_max_items + 1)]
    response = await client.post(
        "/agents/newton/memories/batch", json={"memories": items}, headers=tenancy.headers
    )
    assert response.status_code == 422
    assert "CE_API__BATCH_MAX_ITEMS" in response.json()["detail"]
    assert await count(client, tenancy) == 0


async def test_retry_with_same_key_returns_first_result(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    headers = {**tenancy.headers, "Idempotency-Key": "write-42"}
    first = await client.post("/agents/newton/memories", json=fact(), headers=headers)
    second = await client.post("/agents/newton/memories", json=fact(), headers=headers)
    assert (first.status_code, second.status_code) == (201, 201)
    assert second.json() == first.json()
    assert await count(client, tenancy) == 1
    other_body = await client.post("/agents/newton/memories", json=fact("else"), headers=headers)
    assert other_body.status_code == 409
    assert await count(client, tenancy) == 1


async def test_batch_retry_with_same_key_stores_once(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    headers = {**tenancy.headers, "Idempotency-Key": "batch-1"}
    body = {"memories": [fact("a"), fact("b")]}
    first = await client.post("/agents/newton/memories/batch", json=body, headers=headers)
    second = await client.post("/agents/newton/memories/batch", json=body, headers=headers)
    assert second.json() == first.json()
    assert await count(client, tenancy) == 2


async def test_keys_are_per_tenant(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    await put_agent(client, other_tenancy)
    for who in (tenancy, other_tenancy):
        response = await client.post(
            "/agents/newton/memories",
            json=fact(),
            headers={**who.headers, "Idempotency-Key": "same"},
        )
        assert response.status_code == 201
        assert await count(client, who) == 1
