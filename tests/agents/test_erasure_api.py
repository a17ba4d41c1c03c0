"""DELETE /agents/{agent_id}: the agent and everything it owns are erased, in one request, and
nothing of them is found afterwards by any route, search, build, tool or inspector page."""

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.core.worker import Worker
from tests.agents.erasure import Owned, ids_of, ok, owned_rows, populate, rows_holding
from tests.factories import Tenancy, put_agent, write
from tests.inspect.conftest import cookie


async def _gone(client: httpx.AsyncClient, tenancy: Tenancy, owned: Owned) -> None:
    """Every route that could show the agent's records answers 404 for them."""
    headers, agent, word = tenancy.headers, owned.agent, owned.marker
    base, session = f"/agents/{agent}", f"/agents/{agent}/sessions/{owned.session}"
    reads = [
        base,
        f"{base}/memories",
        f"{base}/frames",
        f"{base}/sessions",
        session,
        f"{session}/messages",
        f"{session}/efforts",
        f"{session}/efforts/{owned.effort}",
        f"{base}/retention/changes",
        f"{base}/retention/limits",
        f"{base}/tools",
        f"/context?agent_id={agent}",
        *(f"/memories/{memory_id}" for memory_id in owned.memories.values()),
        *(f"/context/{build_id}" for build_id in owned.builds),
    ]
    for path in reads:
        response = await client.get(path, headers=headers)
        assert response.status_code == 404, (path, response.text)
        assert response.headers["content-type"] == "application/problem+json"
    writes = [
        ("/context/build", {"agent_id": agent, "input": f"What about {word}?"}),
        ("/context/expand", {"memory_id": owned.memories["fact"]}),
        ("/context/refresh", {"context_id": owned.builds[0], "input": word}),
        (f"/context/{owned.builds[1]}/feedback", {"reply": word}),
        (f"{base}/tools/search_memory", {"arguments": {"query": word}}),
        (f"/memories/{owned.memories['episode']}/restore", None),
    ]
    for path, body in writes:
        response = await client.post(path, json=body, headers=headers)
        assert response.status_code == 404, (path, response.text)
    listed = await ok(await client.get("/agents", headers=headers))
    assert agent not in {item["agent_id"] for item in listed["items"]}
    pages = [
        f"/inspect/agents/{agent}",
        *(f"/inspect/memories/{memory_id}" for memory_id in owned.memories.values()),
        *(f"/inspect/builds/{build_id}" for build_id in owned.builds),
    ]
    for path in pages:
        response = await client.get(path, headers=cookie(tenancy))
        assert response.status_code == 404, path
        assert word not in response.text
    home = await client.get("/inspect", headers=cookie(tenancy))
    assert home.status_code == 200
    assert f"/inspect/agents/{agent}" not in home.text


async def test_erasing_an_agent_leaves_nothing_of_it(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    other_tenancy: Tenancy,
    worker: Worker,
    connection: AsyncConnection,
) -> None:
    owned = await populate(client, tenancy, worker)
    await put_agent(client, tenancy, "ada")  # another agent of the tenant keeps its memory
    kept = await write(client, tenancy, {"kind": "fact", "content": "Ada keeps this."}, "ada")
    ids = await ids_of(connection, tenancy, owned.agent)
    before = await owned_rows(connection, ids)
    assert all(before.values()), before  # the agent owns a row of every kind to erase
    # Its words are in its records of every kind, the stored responses of its writes too.
    assert set(await rows_holding(connection, owned.marker)) >= {
        "agent",
        "memory",
        "memory_cold",
        "session_message",
        "session_summary",
        "session_effort",
        "context_build",
        "idempotency_record",
    }
    # Another tenant cannot erase it, nor its session: they do not exist for it.
    for path in (f"/agents/{owned.agent}", f"/agents/{owned.agent}/sessions/{owned.session}"):
        refused = await client.delete(path, headers=other_tenancy.headers)
        assert refused.status_code == 404, refused.text
        assert refused.headers["content-type"] == "application/problem+json"
    assert await owned_rows(connection, ids) == before
    # The other tenant's agent of the same id is its own, and stays.
    await put_agent(client, other_tenancy, owned.agent)
    theirs = await write(client, other_tenancy, {"kind": "fact", "content": "Theirs."})

    erased = await client.delete(f"/agents/{owned.agent}", headers=tenancy.headers)

    assert erased.status_code == 204, erased.text
    assert erased.content == b""
    assert await owned_rows(connection, ids) == dict.fromkeys(before, 0)
    assert await rows_holding(connection, owned.marker) == {}
    await _gone(client, tenancy, owned)
    again = await client.delete(f"/agents/{owned.agent}", headers=tenancy.headers)
    assert again.status_code == 404
    assert "does not exist" in again.json()["detail"]
    # Its queued work went with it: the worker finds nothing of it to run, and fails nothing.
    await worker.drain()
    failed = await connection.scalar(text("SELECT count(*) FROM job WHERE state = 'failed'"))
    assert failed == 0
    assert await owned_rows(connection, ids) == dict.fromkeys(before, 0)
    # The tenant's other agent, and the other tenant's agent of the same id, are untouched.
    assert (await ok(await client.get(f"/memories/{kept['id']}", headers=tenancy.headers)))[
        "agent_id"
    ] == "ada"
    read = await client.get(f"/memories/{theirs['id']}", headers=other_tenancy.headers)
    assert read.json()["fields"]["content"] == "Theirs."


async def test_an_agent_made_again_under_the_same_id_starts_empty(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    owned = await populate(client, tenancy, worker)
    word, headers = owned.marker, tenancy.headers
    # Builds in this process keep the agent's censors and corpus figures: warm them.
    question = {"agent_id": owned.agent, "input": f"Drop the {word} table? {word} nodes?"}
    warm = await ok(await client.post("/context/build", json=question, headers=headers))
    assert word in warm["context"]
    assert (await client.delete(f"/agents/{owned.agent}", headers=headers)).status_code == 204

    await put_agent(client, tenancy, owned.agent)

    assert (await ok(await client.get(f"/agents/{owned.agent}/memories", headers=headers)))[
        "items"
    ] == []
    sessions = await ok(await client.get(f"/agents/{owned.agent}/sessions", headers=headers))
    assert sessions == {"items": [], "next_cursor": None}
    builds = await ok(await client.get(f"/context?agent_id={owned.agent}", headers=headers))
    assert builds["items"] == []
    built = await ok(await client.post("/context/build", json=question, headers=headers))
    assert word not in built["context"]
    assert [item for layer in built["layers"] for item in layer["items"]] == []
    talk = question | {"session_id": owned.session}
    built = await ok(await client.post("/context/build", json=talk, headers=headers))
    assert word not in built["context"]
    assert built["messages"] == []
    search = {"arguments": {"query": f"{word} nodes"}}
    found = await ok(
        await client.post(
            f"/agents/{owned.agent}/tools/search_memory", json=search, headers=headers
        )
    )
    assert found["references"] == []
    assert word not in found["content"].replace(f'"{word} nodes"', "")
    frames = await ok(await client.get(f"/agents/{owned.agent}/frames", headers=headers))
    assert word not in str(frames)


async def test_a_replayed_write_does_not_bring_back_what_was_erased(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker, connection: AsyncConnection
) -> None:
    """The stored response of an idempotent write is erased with the agent it shows: a retry
    with the same key runs as a new request, against what is stored now."""
    owned = await populate(client, tenancy, worker)
    batch = f"/agents/{owned.agent}/memories/batch"
    keyed = tenancy.headers | {"Idempotency-Key": owned.batch_key}
    replayed = await ok(await client.post(batch, json=owned.batch_body, headers=keyed), 201)
    assert [m["id"] for m in replayed["memories"]][:1] == [owned.memories["decision"]]
    assert (
        await client.delete(f"/agents/{owned.agent}", headers=tenancy.headers)
    ).status_code == 204

    retried = await client.post(batch, json=owned.batch_body, headers=keyed)

    assert retried.status_code == 404, retried.text
    assert owned.marker not in retried.text
    assert await rows_holding(connection, owned.marker) == {}
    # Once an agent of that id exists again, the retry is a new write of what it carries.
    await put_agent(client, tenancy, owned.agent)
    rewritten = await ok(await client.post(batch, json=owned.batch_body, headers=keyed), 201)
    assert {m["id"] for m in rewritten["memories"]}.isdisjoint(owned.memories.values())
    assert all(m["written"] == "created" for m in rewritten["memories"])
