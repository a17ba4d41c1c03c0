"""DELETE /agents/{agent_id}/sessions/{session_id}: the session, its messages, summaries, efforts
and jobs, and the builds made with it go; the agent's memories and other sessions stay."""

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.core.worker import Worker
from tests.agents.erasure import ids_of, ok, owned_rows, populate
from tests.factories import Tenancy

_SESSION_TABLES = ("session_message", "session_summary", "session_effort")


async def test_erasing_a_session_leaves_nothing_of_it(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    other_tenancy: Tenancy,
    worker: Worker,
    connection: AsyncConnection,
) -> None:
    owned = await populate(client, tenancy, worker)
    headers, base = tenancy.headers, f"/agents/{owned.agent}/sessions"
    ids = await ids_of(connection, tenancy, owned.agent)  # of its one session, chat-1
    before = await owned_rows(connection, ids)
    other = {"messages": [{"role": "user", "content": "Another conversation."}]}
    await ok(await client.post(f"{base}/chat-2/messages", json=other, headers=headers), 201)
    assert all(before[table] for table in _SESSION_TABLES), before
    path = f"{base}/{owned.session}"
    refused = await client.delete(path, headers=other_tenancy.headers)
    assert refused.status_code == 404

    erased = await client.delete(path, headers=headers)

    assert erased.status_code == 204, erased.text
    after = await owned_rows(connection, ids)
    assert all(after[table] == 0 for table in _SESSION_TABLES), after
    assert after["memory"] == before["memory"]
    assert after["conversation_session"] == 1  # chat-2
    session_jobs = await connection.scalar(
        text("SELECT count(*) FROM job WHERE session_id = ANY(CAST(:sessions AS uuid[]))"), ids
    )
    assert session_jobs == 0
    for gone in (path, f"{path}/messages", f"{path}/efforts", f"{path}/efforts/{owned.effort}"):
        response = await client.get(gone, headers=headers)
        assert response.status_code == 404, (gone, response.text)
    # The builds made with the session (and the refresh of one) went; the other one stays.
    plain, *with_session = owned.builds
    for build_id in with_session:
        assert (await client.get(f"/context/{build_id}", headers=headers)).status_code == 404
    assert (await client.get(f"/context/{plain}", headers=headers)).status_code == 200
    listed = await ok(await client.get(f"/context?agent_id={owned.agent}", headers=headers))
    assert [item["context_id"] for item in listed["items"]] == [plain]
    sessions = await ok(await client.get(base, headers=headers))
    assert [item["session_id"] for item in sessions["items"]] == ["chat-2"]
    for memory_id in owned.memories.values():
        assert (await client.get(f"/memories/{memory_id}", headers=headers)).status_code == 200
    # A build with the session's id now finds no history.
    talk = {"agent_id": owned.agent, "input": "Where were we?", "session_id": owned.session}
    built = await ok(await client.post("/context/build", json=talk, headers=headers))
    assert built["messages"] == []
    assert owned.marker not in str(built["messages"])
    again = await client.delete(path, headers=headers)
    assert again.status_code == 404
    await worker.drain()  # its queued jobs went with it
    failed = await connection.scalar(text("SELECT count(*) FROM job WHERE state = 'failed'"))
    assert failed == 0


async def test_a_replayed_append_starts_a_new_session(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    """The stored response of an append is erased with its session: a retry with the same key
    runs as a new append, and its messages start a new session of that id."""
    owned = await populate(client, tenancy, worker)
    path = f"/agents/{owned.agent}/sessions/{owned.session}"
    keyed = tenancy.headers | {"Idempotency-Key": f"append-{owned.marker}"}
    body = {"messages": [{"role": "user", "content": f"Remember {owned.marker}."}]}
    first = await ok(await client.post(f"{path}/messages", json=body, headers=keyed), 201)
    assert first["messages"][0]["seq"] > 0
    assert (await client.delete(path, headers=tenancy.headers)).status_code == 204

    retried = await ok(await client.post(f"{path}/messages", json=body, headers=keyed), 201)

    assert retried["messages"][0]["seq"] == 0
    assert retried["messages"][0]["id"] != first["messages"][0]["id"]
    assert retried["session"]["messages"] == 1
    page = await ok(await client.get(f"{path}/messages", headers=tenancy.headers))
    assert [m["content"] for m in page["items"]] == [f"Remember {owned.marker}."]


async def test_erasing_a_session_of_an_unknown_agent_or_session_is_404(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    unknown_agent = await client.delete("/agents/nobody/sessions/chat-1", headers=tenancy.headers)
    assert unknown_agent.status_code == 404
    assert "PUT /agents/nobody" in unknown_agent.json()["detail"]
    await client.put("/agents/newton", json={"identity": {"name": "N"}}, headers=tenancy.headers)
    unknown = await client.delete("/agents/newton/sessions/chat-9", headers=tenancy.headers)
    assert unknown.status_code == 404
    assert unknown.headers["content-type"] == "application/problem+json"
    malformed = await client.delete("/agents/newton/sessions/bad%20id", headers=tenancy.headers)
    assert malformed.status_code == 422
    assert malformed.json()["errors"][0]["loc"] == ["path", "session_id"]
