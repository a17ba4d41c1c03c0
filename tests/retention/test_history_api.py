"""GET /memories/{memory_id}/history: a memory's history as data, oldest first: written,
embedded, lifecycle actions with the outcomes they recorded, retention's changes with their
reasons; of the key's tenant only, 410 once erased."""

from typing import Any

import httpx

from app.core.worker import Worker
from tests.factories import Tenancy, decision, put_agent, write
from tests.retention.writes import NOW, episode, run


async def history(client: httpx.AsyncClient, tenancy: Tenancy, memory_id: str) -> Any:
    response = await client.get(f"/memories/{memory_id}/history", headers=tenancy.headers)
    assert response.status_code == 200, response.text
    return response.json()


async def patch(client: httpx.AsyncClient, tenancy: Tenancy, memory_id: str, **body: Any) -> None:
    response = await client.patch(f"/memories/{memory_id}", json=body, headers=tenancy.headers)
    assert response.status_code == 200, response.text


async def test_a_decisions_outcomes_in_order(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    chosen = (await write(client, tenancy, decision("Chose Postgres over ChromaDB")))["id"]
    await worker.drain()
    await patch(client, tenancy, chosen, action="record_outcome", outcome="success")
    await patch(client, tenancy, chosen, action="amend_outcome", outcome="failure", notes="Slow")
    found = await history(client, tenancy, chosen)
    assert (found["memory_id"], found["kind"], found["state"]) == (chosen, "decision", "reviewed")
    assert [(e["event"], e["name"]) for e in found["events"]] == [
        ("written", None),
        ("embedded", None),
        ("action", "record_outcome"),
        ("action", "amend_outcome"),
    ]
    embedded, recorded, amended = found["events"][1:]
    assert embedded["detail"] == "all-MiniLM-L6-v2"
    assert (recorded["from_state"], recorded["to_state"]) == ("recorded", "reviewed")
    assert amended["changes"]["outcome"] == {"from": "success", "to": "failure"}
    times = [e["at"] for e in found["events"]]
    assert times == sorted(times)


async def test_retentions_changes_with_their_reasons(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    old = (await write(client, tenancy, episode("Vacuum incident", 40)))["id"]
    await run(client, tenancy, now=NOW.isoformat())
    events = (await history(client, tenancy, old))["events"]
    assert [e["event"] for e in events] == ["written", "retention"]
    assert events[0]["to_state"] == "active"
    change = events[1]
    assert (change["name"], change["from_state"], change["to_state"]) == (
        "episode_summarized",
        "active",
        "summarized",
    )
    assert "40 days" in change["detail"]
    assert change["restored_at"] is None


async def test_other_tenants_unknown_and_erased(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    memory_id = (await write(client, tenancy, episode("Disk swap", 1)))["id"]
    other = await client.get(f"/memories/{memory_id}/history", headers=other_tenancy.headers)
    assert other.status_code == 404
    assert other.headers["content-type"] == "application/problem+json"
    erased = await client.delete(f"/memories/{memory_id}", headers=tenancy.headers)
    assert erased.status_code == 204
    gone = await client.get(f"/memories/{memory_id}/history", headers=tenancy.headers)
    assert gone.status_code == 410
