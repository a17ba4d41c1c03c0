"""PATCH amend_outcome: a reviewed decision's outcome is corrected; its log keeps the old one,
and what builds make of the outcome (calibration, ranking, the lesson) follows."""

from typing import Any

import httpx

from app.core.worker import Worker
from tests.factories import Tenancy, decision, put_agent, write
from tests.inspect.conftest import cookie

QUESTION = "Which store did we choose for the cache?"


async def patch(
    client: httpx.AsyncClient, tenancy: Tenancy, memory_id: str, **body: object
) -> httpx.Response:
    return await client.patch(f"/memories/{memory_id}", json=body, headers=tenancy.headers)


async def build(client: httpx.AsyncClient, tenancy: Tenancy) -> dict[str, Any]:
    response = await client.post(
        "/context/build", headers=tenancy.headers, json={"agent_id": "newton", "input": QUESTION}
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def test_a_reviewed_decision_takes_an_amended_outcome_and_its_log_keeps_both(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    memory = await write(client, tenancy, decision())
    reviewed = await patch(
        client, tenancy, memory["id"], action="record_outcome", outcome="success", notes="Fast."
    )
    assert reviewed.status_code == 200, reviewed.text
    again = await patch(client, tenancy, memory["id"], action="record_outcome", outcome="failure")
    assert again.status_code == 409
    assert again.json()["allowed_actions"] == ["amend_outcome"]

    amended = await patch(
        client,
        tenancy,
        memory["id"],
        action="amend_outcome",
        outcome="failure",
        notes="Writes stalled under load.",
    )
    assert amended.status_code == 200, amended.text
    read = amended.json()
    assert (read["state"], read["outcome"]) == ("reviewed", "failure")
    assert read["fields"]["outcome_notes"] == "Writes stalled under load."
    assert (
        read["representations"]["micro"]["text"] == "Chose Postgres over ChromaDB [failure, 0.80]"
    )
    full = read["representations"]["full"]["text"]
    assert full.endswith("Outcome: failure — Writes stalled under load.")
    assert "Fast." not in full
    # Its text changed: it is embedded again.
    assert [job["task"] for job in read["provenance"]["jobs"]] == ["embed"] * 3

    # Without notes, the old notes go with the outcome they spoke of.
    partial = await patch(client, tenancy, memory["id"], action="amend_outcome", outcome="partial")
    assert partial.json()["fields"]["outcome_notes"] is None
    assert partial.json()["representations"]["full"]["text"].endswith("Outcome: partial")

    page = await client.get(f"/inspect/memories/{memory['id']}", headers=cookie(tenancy))
    assert page.status_code == 200
    assert "outcome &#39;success&#39; → &#39;failure&#39;" in page.text
    assert "outcome notes &#39;Fast.&#39; → &#39;Writes stalled under load.&#39;" in page.text
    assert "outcome &#39;failure&#39; → &#39;partial&#39;" in page.text

    hidden = await patch(
        client, other_tenancy, memory["id"], action="amend_outcome", outcome="success"
    )
    assert hidden.status_code == 404
    unread = await patch(client, tenancy, memory["id"], action="amend_outcome", outcome="great")
    assert unread.status_code == 422
    assert unread.json()["errors"][0]["loc"][-1] == "outcome"
    kept = (await client.get(f"/memories/{memory['id']}", headers=tenancy.headers)).json()
    assert kept["outcome"] == "partial"


async def test_amending_only_applies_to_a_reviewed_decision(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    memory = await write(client, tenancy, decision())
    early = await patch(client, tenancy, memory["id"], action="amend_outcome", outcome="success")
    assert early.status_code == 409
    assert early.json()["allowed_actions"] == ["mark_pending", "record_outcome"]
    read = (await client.get(f"/memories/{memory['id']}", headers=tenancy.headers)).json()
    assert (read["state"], read["outcome"]) == ("recorded", "pending")


async def test_builds_follow_an_amended_outcome(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    chosen = [
        await write(client, tenancy, decision(text, confidence=0.9, outcome="success"))
        for text in (
            "Chose Postgres UNLOGGED tables over Redis for the cache",
            "Chose Postgres over ChromaDB for vectors",
            "Chose one connection pool for every service",
        )
    ]
    await worker.drain()
    before = await build(client, tenancy)
    assert "Recent accuracy: 100%." in before["context"]
    cache = chosen[0]["id"]
    item = next(i for la in before["layers"] for i in la["items"] if i["memory_id"] == cache)
    assert item["components"]["outcome"] == 1.2

    amended = await patch(client, tenancy, cache, action="amend_outcome", outcome="failure")
    assert amended.status_code == 200, amended.text
    await worker.drain()
    after = await build(client, tenancy)
    assert "Recent accuracy: 67%." in after["context"]
    assert "Overconfident" in after["context"]
    item = next(i for la in after["layers"] for i in la["items"] if i["memory_id"] == cache)
    assert item["components"]["outcome"] == 0.8
    assert (
        "Chose Postgres UNLOGGED tables over Redis for the cache [failure, 0.90]"
        in (after["context"])
    )
