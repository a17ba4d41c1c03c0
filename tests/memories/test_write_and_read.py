"""Writing memories, expanding them, listing them, and finding them by their words at once."""

import uuid

import httpx
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.worker import Worker
from app.providers.container import Providers
from tests.factories import Tenancy, decision, fact, put_agent, write

ALL_KINDS = [
    decision(),
    fact(),
    {
        "kind": "procedure",
        "name": "Deploy",
        "description": "Ship a change.",
        "steps": ["branch", "PR", "review", "CI", "merge"],
    },
    {
        "kind": "episode",
        "title": "Storage talk",
        "detail": "Compared Postgres and Qdrant.",
        "participants": ["Tim"],
        "started_at": "2026-01-02T10:00:00Z",
    },
    {
        "kind": "censor",
        "trigger_pattern": "push to main",
        "reason": "review first",
        "action": "block",
    },
]


async def test_every_kind_is_stored_with_three_sizes_and_exact_counts(
    client: httpx.AsyncClient, tenancy: Tenancy, providers: Providers
) -> None:
    await put_agent(client, tenancy)
    for body in ALL_KINDS:
        memory = await write(client, tenancy, body)
        assert memory["kind"] == body["kind"]
        for level in ("micro", "summary", "full"):
            representation = memory["representations"][level]
            text = representation["text"]
            assert representation["tokens"] == providers.tokens.count(text, "o200k_base")
            assert representation["tokens_by_encoding"]["cl100k_base"] == providers.tokens.count(
                text, "cl100k_base"
            )
        assert memory["provenance"]["jobs"] == [
            {**memory["provenance"]["jobs"][0], "task": "embed", "state": "queued"}
        ]
    states = {
        m["kind"]: m["state"]
        for m in (await client.get("/agents/newton/memories", headers=tenancy.headers)).json()[
            "items"
        ]
    }
    assert states == {
        "decision": "recorded",
        "fact": "new",
        "procedure": "active",
        "episode": "active",
        "censor": "created",
    }


async def test_episode_happened_when_it_started(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    memory = await write(client, tenancy, ALL_KINDS[3])
    assert memory["provenance"]["occurred_at"] == "2026-01-02T10:00:00Z"


async def test_an_episode_dated_only_by_its_end_happened_by_then(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    body = {
        "kind": "episode",
        "detail": "Read the novel aloud.",
        "ended_at": "2026-07-29T17:00:00Z",
    }
    memory = await write(client, tenancy, body)
    assert memory["provenance"]["occurred_at"] == "2026-07-29T17:00:00Z"
    given = await write(client, tenancy, body | {"occurred_at": "2026-07-29T15:00:00Z"})
    assert given["provenance"]["occurred_at"] == "2026-07-29T15:00:00Z"


async def test_found_by_words_at_once_and_by_embedding_after_the_worker(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    worker: Worker,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(client, tenancy)
    wanted = await write(client, tenancy, fact("PostgreSQL supports UNLOGGED tables for caches."))
    await write(client, tenancy, fact("Tim prefers Celsius."))
    found = await client.get(
        "/agents/newton/memories", params={"q": "unlogged caching"}, headers=tenancy.headers
    )
    assert [item["id"] for item in found.json()["items"]] == [wanted["id"]]
    assert found.json()["next_cursor"] is None
    assert await worker.drain() == 2
    expanded = (await client.get(f"/memories/{wanted['id']}", headers=tenancy.headers)).json()
    assert expanded["provenance"]["embedding_model"] == "all-MiniLM-L6-v2"
    assert expanded["provenance"]["jobs"][0]["state"] == "done"


async def test_expand_is_scoped_to_the_tenant(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    memory = await write(client, tenancy, fact())
    assert (
        await client.get(f"/memories/{memory['id']}", headers=other_tenancy.headers)
    ).status_code == 404
    assert (
        await client.patch(
            f"/memories/{memory['id']}", json={"action": "confirm"}, headers=other_tenancy.headers
        )
    ).status_code == 404
    assert (
        await client.delete(f"/memories/{memory['id']}", headers=other_tenancy.headers)
    ).status_code == 404
    assert (
        await client.get(f"/memories/{uuid.uuid4()}", headers=tenancy.headers)
    ).status_code == 404
    malformed = await client.get("/memories/not-a-uuid", headers=tenancy.headers)
    assert malformed.status_code == 422
    assert malformed.json()["errors"][0]["loc"] == ["path", "memory_id"]


async def test_writing_to_unknown_agent_is_404(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    response = await client.post("/agents/ghost/memories", json=fact(), headers=tenancy.headers)
    assert response.status_code == 404


async def test_list_filters_by_kind_state_and_metadata(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    redis = await write(client, tenancy, fact("Redis is fast.", metadata={"topic": "redis"}))
    await write(client, tenancy, fact("Postgres is solid.", metadata={"topic": "postgres"}))
    await write(client, tenancy, decision(metadata={"topic": "redis"}))
    await client.patch(
        f"/memories/{redis['id']}", json={"action": "confirm"}, headers=tenancy.headers
    )

    async def ids(**params: str | list[str]) -> list[str]:
        response = await client.get(
            "/agents/newton/memories", params=params, headers=tenancy.headers
        )
        assert response.status_code == 200, response.text
        return [item["id"] for item in response.json()["items"]]

    assert len(await ids(kind="fact")) == 2
    assert len(await ids(kind=["fact", "decision"])) == 3
    assert await ids(kind="fact", metadata='{"topic": "redis"}') == [redis["id"]]
    assert await ids(state="confirmed") == [redis["id"]]
    bad = await client.get(
        "/agents/newton/memories", params={"metadata": "{nope"}, headers=tenancy.headers
    )
    assert bad.status_code == 422
    assert bad.json()["errors"][0]["loc"] == ["query", "metadata"]
    bad_kind = await client.get(
        "/agents/newton/memories", params={"kind": "dream"}, headers=tenancy.headers
    )
    assert bad_kind.status_code == 422


async def test_cursor_pagination_walks_every_memory_once(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    batch = {"memories": [fact(f"Fact number {i}") for i in range(7)]}
    created = await client.post(
        "/agents/newton/memories/batch", json=batch, headers=tenancy.headers
    )
    written = {m["id"] for m in created.json()["memories"]}
    seen: list[str] = []
    cursor: str | None = None
    while True:
        params: dict[str, str | int] = {"limit": 3}
        if cursor:
            params["cursor"] = cursor
        page = (
            await client.get("/agents/newton/memories", params=params, headers=tenancy.headers)
        ).json()
        seen += [item["id"] for item in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == 7
    assert set(seen) == written
    bad = await client.get(
        "/agents/newton/memories", params={"cursor": "garbage"}, headers=tenancy.headers
    )
    assert bad.status_code == 422
