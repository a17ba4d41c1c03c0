"""GET /agents/{agent_id}/memories/search: the memories a query finds by meaning and words, as
data with their scores, ranked and gated as search_memory and a build rank and gate them; no
build is stored and nothing counts as referenced."""

import httpx

from app.core.worker import Worker
from tests.factories import Tenancy, put_agent, write
from tests.tools.calls import memory_ids, result
from tests.tools.test_search_memory_api import (
    FLIGHT,
    ROTATION,
    VIOLIN,
    agent_with_memories,
)


async def search(
    client: httpx.AsyncClient, tenancy: Tenancy, agent: str = "newton", **params: str | int
) -> httpx.Response:
    return await client.get(
        f"/agents/{agent}/memories/search", params=params, headers=tenancy.headers
    )


async def test_finds_by_meaning_with_scores_as_the_tool_does(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    ids = await agent_with_memories(client, tenancy)
    await worker.drain()
    question = "What instrument will my child learn?"  # no word in common with the memory
    response = await search(client, tenancy, q=question)
    assert response.status_code == 200, response.text
    found = response.json()
    assert found["query"] == question
    assert found["by_meaning"] is True
    best = found["memories"][0]
    assert best["memory_id"] == ids[VIOLIN]
    assert (best["kind"], best["state"], best["summary"]) == ("fact", "new", VIOLIN)
    assert best["reason"] == "meaning"
    assert best["components"]["semantic"] > 0
    assert best["score"] >= found["memories"][-1]["score"]
    tool = await result(client, tenancy, "search_memory", {"query": question, "limit": 10})
    assert [m["memory_id"] for m in found["memories"]] == memory_ids(tool)


async def test_words_kinds_and_limit(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    ids = await agent_with_memories(client, tenancy)  # no worker ran: words alone
    found = (await search(client, tenancy, q="staging password")).json()
    assert [m["memory_id"] for m in found["memories"]] == [ids[ROTATION]]
    assert found["memories"][0]["reason"] == "words"
    assert (await search(client, tenancy, q="Lisbon flight", kind="decision")).json()[
        "memories"
    ] == []
    many = (await search(client, tenancy, q="Lisbon flight violin password", limit=1)).json()
    assert len(many["memories"]) == 1
    assert many["memories"][0]["memory_id"] in {ids[FLIGHT], ids[VIOLIN], ids[ROTATION]}


async def test_stores_no_build_and_counts_no_reference(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    ids = await agent_with_memories(client, tenancy)
    assert (await search(client, tenancy, q="staging password")).status_code == 200
    builds = await client.get("/context", params={"agent_id": "newton"}, headers=tenancy.headers)
    assert builds.json()["items"] == []
    record = await client.get(f"/memories/{ids[ROTATION]}", headers=tenancy.headers)
    assert record.json()["reference_count"] == 0


async def test_bad_queries_and_other_tenants(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    await write(client, tenancy, {"kind": "fact", "content": ROTATION})
    for params, field in (
        ({"q": "   "}, "q"),
        ({}, "q"),
        ({"q": "x", "limit": 0}, "limit"),
        ({"q": "x", "kind": "gossip"}, "kind"),
    ):
        response = await search(client, tenancy, **params)
        assert response.status_code == 422, (params, response.text)
        assert response.headers["content-type"] == "application/problem+json"
        assert field in response.text
    unknown = await search(client, tenancy, agent="nobody", q="password")
    assert unknown.status_code == 404
    assert (await search(client, other_tenancy, q="password")).status_code == 404
