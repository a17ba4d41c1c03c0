"""Ranking on real memories: lifecycle states, adjacency on the timeline, stable prefixes."""

from typing import Any

import httpx

from app.core.worker import Worker
from tests.context.test_build_api import build, included
from tests.factories import Tenancy, fact, put_agent, write


async def test_invalidated_and_superseded_facts_are_left_out(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    old = await write(client, tenancy, fact("The staging database runs PostgreSQL 15."))
    new = await write(client, tenancy, fact("The staging database runs PostgreSQL 17."))
    wrong = await write(client, tenancy, fact("The staging database runs MySQL 8."))
    await client.patch(
        f"/memories/{old['id']}",
        headers=tenancy.headers,
        json={"action": "supersede", "superseded_by": new["id"]},
    )
    await client.patch(
        f"/memories/{wrong['id']}", headers=tenancy.headers, json={"action": "invalidate"}
    )
    await worker.drain()
    result = await build(client, tenancy, input="Which database does staging run?", budget=1000)
    scores = {i["memory_id"]: i["score"] for layer in result["layers"] for i in layer["items"]}
    scores |= {item["memory_id"]: item["score"] for item in result["left_out"]}
    assert wrong["id"] not in scores
    assert old["id"] not in scores
    assert new["id"] in scores


async def test_turns_next_to_a_strong_hit_come_along(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    turns = [
        "Melanie: I finally signed up for the pottery class!",
        "Caroline: That's great, when does it start?",
        "Melanie: Next Tuesday at the community center.",
        "Caroline: I adopted a puppy named Biscuit last week.",
    ]
    written: list[dict[str, Any]] = []
    for turn in turns:
        written.append(
            await write(
                client,
                tenancy,
                {"kind": "episode", "detail": turn, "started_at": "2023-05-08T13:56:00Z"},
            )
        )
    await worker.drain()
    result = await build(client, tenancy, input="What class did Melanie sign up for?", budget=2000)
    items = {i["memory_id"]: i for layer in result["layers"] for i in layer["items"]}
    assert written[0]["id"] in items
    neighbour = items[written[1]["id"]]
    assert neighbour["components"]["adjacency"] > 0
    # Past experiences read in the order they happened, under their day.
    experience = result["context"].split("## Past Experience\n")[1]
    assert experience.startswith("On 8 May 2023:\n- Melanie: I finally signed up")
    assert experience.index("Melanie: I finally") < experience.index("Caroline: That's great")


async def test_consecutive_builds_share_a_stable_prefix(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    first = await build(client, tenancy, input="Should we use Redis for caching in Newton?")
    second = await build(client, tenancy, input="Should we use Memcached for caching instead?")
    assert first["frame"]["name"] == second["frame"]["name"] == "decision"
    prefix = first["context"].split("## Relevant Past Decisions")[0]
    assert prefix.startswith("## Identity")
    assert "## Current Focus" in prefix
    assert second["context"].startswith(prefix)
    assert included(first)


async def test_only_parts_of_the_same_conversation_are_neighbours(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    days = ["2023-05-01T10:00:00Z", "2023-05-08T10:00:00Z", "2023-05-15T10:00:00Z"]
    details = [
        "Reviewed the quarterly invoices with finance.",
        "Melanie signed up for the pottery class at the community center.",
        "Repainted the garden fence.",
    ]
    written = [
        await write(client, tenancy, {"kind": "episode", "detail": detail, "started_at": day})
        for detail, day in zip(details, days, strict=True)
    ]
    await worker.drain()
    result = await build(client, tenancy, input="What class did Melanie sign up for?", budget=2000)
    items = {i["memory_id"]: i for layer in result["layers"] for i in layer["items"]}
    assert written[1]["id"] in items
    # A week before and after: other days' business, not this conversation's turns.
    adjacency = [items[w["id"]]["components"]["adjacency"] for w in written if w["id"] in items]
    assert adjacency == [0.0] * len(adjacency)
