"""Writes from several requests at once, each committing for real (no test transaction)."""

import asyncio

import httpx
import pytest

from tests.factories import Tenancy, fact, put_agent
from tests.memories.test_batch_and_idempotency import count

pytestmark = pytest.mark.committed


async def test_concurrent_batches_repeating_known_facts_all_succeed(
    committed_client: httpx.AsyncClient, committed_tenancy: Tenancy
) -> None:
    await put_agent(committed_client, committed_tenancy)
    known = [fact(f"Service {name} runs on the shared cluster.") for name in "abcdef"]
    first = await committed_client.post(
        "/agents/newton/memories/batch", json={"memories": known}, headers=committed_tenancy.headers
    )
    assert first.status_code == 201

    async def repeat(order: list[dict[str, object]]) -> int:
        response = await committed_client.post(
            "/agents/newton/memories/batch",
            json={"memories": order},
            headers=committed_tenancy.headers,
        )
        return response.status_code

    # Each batch confirms the same facts, half of them in the opposite order.
    orders = [known if i % 2 else known[::-1] for i in range(8)]
    statuses = await asyncio.gather(*(repeat(order) for order in orders))
    assert statuses == [201] * 8
    assert await count(committed_client, committed_tenancy) == len(known)
    listed = await committed_client.get(
        "/agents/newton/memories", headers=committed_tenancy.headers
    )
    assert {m["fields"]["confirmation_count"] for m in listed.json()["items"]} == {8}
