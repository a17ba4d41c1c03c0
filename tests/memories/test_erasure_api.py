"""DELETE /memories/{id}: a decision is erased only when the request says so; an erased memory
leaves every list, search, build and replay, its text leaves the stored builds, and a tombstone
(id, kind, time) answers 410."""

from typing import Any

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.core.worker import Worker
from tests.context.history.test_history_api import MESSAGES, conversation
from tests.factories import Tenancy, decision, put_agent, write

SECRET = "Chose Zanzibar queues over Kafka for Alice Moreau's billing"
NOTES = "Alice's invoices went out two days early."
QUESTION = "Which queue did we choose for billing, Zanzibar or Kafka?"
ROOMY = {"total": 8000, "memory_fraction": 0.15, "learnings_fraction": 0.1}


async def build(client: httpx.AsyncClient, tenancy: Tenancy, **body: Any) -> dict[str, Any]:
    response = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": "newton", "input": QUESTION, **body},
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def shown(result: dict[str, Any]) -> dict[str, list[str]]:
    return {la["name"]: [i["memory_id"] for i in la["items"]] for la in result["layers"]}


async def reviewed_secret(client: httpx.AsyncClient, tenancy: Tenancy) -> dict[str, Any]:
    """The agent with a reviewed decision that names a person, and one other decision."""
    await put_agent(client, tenancy)
    await write(client, tenancy, decision("Chose Postgres over Redis for the billing cache"))
    secret = await write(
        client,
        tenancy,
        decision(
            SECRET,
            reasons=["Zanzibar ships invoices in order."],
            alternatives=["Kafka"],
            metadata={"customer": "alice@example.com"},
        ),
    )
    outcome = {"action": "record_outcome", "outcome": "success", "notes": NOTES}
    patched = await client.patch(f"/memories/{secret['id']}", json=outcome, headers=tenancy.headers)
    assert patched.status_code == 200, patched.text
    return secret


async def test_a_decision_is_erased_only_when_the_request_says_so(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    chosen = await write(client, tenancy, decision())
    for url in (f"/memories/{chosen['id']}", f"/memories/{chosen['id']}?erase=false"):
        refused = await client.delete(url, headers=tenancy.headers)
        assert refused.status_code == 409
        problem = refused.json()
        assert "permanent records" in problem["detail"]
        assert f"DELETE /memories/{chosen['id']}?erase=true" in problem["detail"]
        assert problem["allowed_actions"] == ["mark_pending", "record_outcome"]
    outcome = {"action": "record_outcome", "outcome": "failure"}
    await client.patch(f"/memories/{chosen['id']}", json=outcome, headers=tenancy.headers)
    refused = await client.delete(f"/memories/{chosen['id']}", headers=tenancy.headers)
    assert "`amend_outcome`" in refused.json()["detail"]
    assert refused.json()["allowed_actions"] == ["amend_outcome"]
    kept = await client.get(f"/memories/{chosen['id']}", headers=tenancy.headers)
    assert kept.status_code == 200


async def test_an_erased_decision_is_gone_from_reads_lists_searches_and_builds(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    other_tenancy: Tenancy,
    worker: Worker,
    connection: AsyncConnection,
) -> None:
    secret = await reviewed_secret(client, tenancy)
    await worker.drain()
    before = await build(client, tenancy)
    assert secret["id"] in shown(before)["decisions"]
    assert "Zanzibar" in before["context"]
    url = f"/memories/{secret['id']}"

    theirs = await client.delete(f"{url}?erase=true", headers=other_tenancy.headers)
    assert theirs.status_code == 404
    erased = await client.delete(f"{url}?erase=true", headers=tenancy.headers)
    assert (erased.status_code, erased.content) == (204, b"")

    gone = await client.get(url, headers=tenancy.headers)
    assert gone.status_code == 410
    assert gone.headers["content-type"] == "application/problem+json"
    problem = gone.json()
    assert problem["kind"] == "decision"
    assert f"was erased at {problem['erased_at']}" in problem["detail"]
    for response in (
        await client.patch(
            url, json={"action": "amend_outcome", "outcome": "failure"}, headers=tenancy.headers
        ),
        await client.delete(f"{url}?erase=true", headers=tenancy.headers),
        await client.post(
            "/context/expand", json={"memory_id": secret["id"]}, headers=tenancy.headers
        ),
        await client.post(f"{url}/restore", headers=tenancy.headers),
    ):
        assert response.status_code == 410, response.text
    assert (await client.get(url, headers=other_tenancy.headers)).status_code == 404

    listed = await client.get("/agents/newton/memories", headers=tenancy.headers)
    assert secret["id"] not in [item["id"] for item in listed.json()["items"]]
    assert len(listed.json()["items"]) == 1
    for words in ("Zanzibar", "invoices", "Alice"):
        found = await client.get(
            "/agents/newton/memories", params={"q": words}, headers=tenancy.headers
        )
        assert found.json()["items"] == [], words
    after = await build(client, tenancy)
    assert secret["id"] not in str(after["layers"]) + str(after["left_out"])
    assert "Zanzibar" not in after["context"]
    await _assert_only_a_tombstone(connection, secret, problem["erased_at"])


async def _assert_only_a_tombstone(
    connection: AsyncConnection, secret: dict[str, Any], erased_at: str
) -> None:
    """The tombstone: id, kind and time, nothing else; the row and its log are gone."""
    tombstone = (
        (await connection.execute(text("SELECT * FROM memory_tombstone WHERE id = :id"), secret))
        .mappings()
        .one()
    )
    assert set(tombstone) == {"id", "tenant_id", "agent_id", "kind", "erased_at"}
    assert tombstone["kind"] == "decision"
    assert tombstone["erased_at"].isoformat() == erased_at
    for table, column in (
        ("memory", "id"),
        ("memory_transition", "memory_id"),
        ("job", "memory_id"),
    ):
        left = await connection.scalar(
            text(f"SELECT count(*) FROM {table} WHERE {column} = :id"), secret
        )
        assert left == 0, table


async def test_the_erased_text_leaves_stored_builds_and_replays(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    secret = await reviewed_secret(client, tenancy)
    keyed = {**tenancy.headers, "Idempotency-Key": "write-the-fact"}
    body = {"kind": "fact", "content": "Alice Moreau pays by bank transfer."}
    fact = (await client.post("/agents/newton/memories", json=body, headers=keyed)).json()
    await client.post(MESSAGES, json={"messages": conversation(6)}, headers=tenancy.headers)
    await worker.drain()
    plain = await build(client, tenancy)
    with_session = await build(client, tenancy, session_id="chat-1", window=ROOMY, model="gpt-4o")
    assert secret["id"] in shown(with_session)["learnings"]
    assert NOTES in with_session["context"]
    assert fact["id"] in shown(plain)["facts"]

    for memory_id, erase in ((secret["id"], "?erase=true"), (fact["id"], "")):
        erased = await client.delete(f"/memories/{memory_id}{erase}", headers=tenancy.headers)
        assert erased.status_code == 204, erased.text

    words = ("Zanzibar", "Alice", "invoices", "bank transfer")
    for result in (plain, with_session):
        stored = await client.get(f"/context/{result['context_id']}", headers=tenancy.headers)
        assert stored.status_code == 200
        scrubbed = stored.json()
        assert not [word for word in words if word in scrubbed["context"]]
        assert "- [erased]" in scrubbed["context"]
        # Every other line is as it was returned; the items keep their ids and figures.
        lines = result["context"].split("\n")
        others = [line for line in lines if not any(word in line for word in words)]
        assert [line for line in scrubbed["context"].split("\n") if line in lines] == others
        assert scrubbed["layers"] == result["layers"]
        named = {item["memory_id"]: item["kind"] for item in scrubbed["erased"]}
        assert named[secret["id"]] == "decision"
    stored = await client.get(f"/context/{plain['context_id']}", headers=tenancy.headers)
    assert (
        "## Relevant Past Decisions\n- [erased]\n\n## Known Information\n- [erased]"
        in (stored.json()["context"])
    )

    replayed = await client.post("/agents/newton/memories", json=body, headers=keyed)
    assert replayed.status_code == 410
    assert "new Idempotency-Key" in replayed.json()["detail"]


async def test_jobs_queued_for_an_erased_memory_neither_fail_nor_bring_it_back(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker, connection: AsyncConnection
) -> None:
    await put_agent(client, tenancy)
    chosen = await write(client, tenancy, decision(SECRET))
    assert [job["state"] for job in chosen["provenance"]["jobs"]] == ["queued"]
    erased = await client.delete(f"/memories/{chosen['id']}?erase=true", headers=tenancy.headers)
    assert erased.status_code == 204
    await worker.drain()
    failed = await connection.scalar(text("SELECT count(*) FROM job WHERE state = 'failed'"))
    assert failed == 0
    assert (
        await client.get(f"/memories/{chosen['id']}", headers=tenancy.headers)
    ).status_code == 410
    listed = await client.get("/agents/newton/memories", headers=tenancy.headers)
    assert listed.json()["items"] == []
