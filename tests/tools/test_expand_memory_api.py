"""expand_memory: a memory of the agent's at the detail asked, its full text by default."""

import uuid

import httpx

from tests.factories import Tenancy, decision, put_agent, write
from tests.tools.calls import call, result


async def test_a_memory_comes_in_full_and_counts_as_referenced(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    written = await write(client, tenancy, decision("Chose Postgres over ChromaDB"))
    memory_id, full = written["id"], written["representations"]["full"]["text"]
    found = await result(client, tenancy, "expand_memory", {"memory_id": memory_id})
    assert found["content"].startswith(f"[memory {memory_id}] decision, recorded, 20")
    assert found["content"].endswith(f" (full):\n{full}")
    assert found["references"] == [{"kind": "memory", "id": memory_id}]
    micro = await result(
        client, tenancy, "expand_memory", {"memory_id": memory_id, "level": "micro"}
    )
    assert micro["content"].endswith("\n" + written["representations"]["micro"]["text"])
    record = await client.get(f"/memories/{memory_id}", headers=tenancy.headers)
    assert record.json()["reference_count"] == 2


async def test_a_memory_the_agent_does_not_have_is_404(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    await put_agent(client, tenancy, "ada")
    theirs = await write(client, tenancy, decision(), agent="ada")
    for memory_id in (theirs["id"], str(uuid.uuid4())):
        response = await call(client, tenancy, "expand_memory", {"memory_id": memory_id})
        assert response.status_code == 404
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["errors"][0]["loc"] == ["body", "arguments", "memory_id"]
    # Another tenant's agent of the same name does not exist for this key.
    await put_agent(client, other_tenancy)
    response = await call(client, other_tenancy, "expand_memory", {"memory_id": theirs["id"]})
    assert response.status_code == 404
