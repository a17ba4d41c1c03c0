"""A fact never confirmed nor referenced for long loses rank in builds, not its data."""

from datetime import UTC, datetime
from typing import Any

import httpx

from tests.factories import Tenancy, fact, put_agent
from tests.retention.writes import days_before, run, write_all

QUESTION = "Which port does the staging VPN listen on?"


async def build_items(client: httpx.AsyncClient, tenancy: Tenancy) -> dict[str, dict[str, Any]]:
    response = await client.post(
        "/context/build",
        json={"agent_id": "newton", "input": QUESTION, "budget": 2000},
        headers=tenancy.headers,
    )
    assert response.status_code == 200, response.text
    return {
        item["memory_id"]: item for layer in response.json()["layers"] for item in layer["items"]
    }


async def test_old_unconfirmed_fact_ranks_lower_and_keeps_its_data(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    now = datetime.now(UTC)
    ids = await write_all(
        client,
        tenancy,
        {
            "stale": fact(
                "The staging VPN listens on port 1194.", occurred_at=days_before(400, now)
            ),
            "recent": fact("The staging VPN listens on UDP.", occurred_at=days_before(10, now)),
        },
    )
    before = await build_items(client, tenancy)
    assert before[ids["stale"]]["components"]["retention"] == 1.0
    result = await run(client, tenancy)
    (change,) = result["changes"]
    assert (change["memory_id"], change["rule"], change["rank_factor"]) == (
        ids["stale"],
        "fact_stale",
        0.5,
    )
    assert (change["from_state"], change["to_state"]) == ("new", "new")
    after = await build_items(client, tenancy)
    assert after[ids["stale"]]["components"]["retention"] == 0.5
    others = [item for memory_id, item in after.items() if memory_id != ids["stale"]]
    assert all(item["components"]["retention"] == 1.0 for item in others)
    assert after[ids["stale"]]["score"] < before[ids["stale"]]["score"]
    read = (await client.get(f"/memories/{ids['stale']}", headers=tenancy.headers)).json()
    assert (read["state"], read["fields"]["content"]) == (
        "new",
        "The staging VPN listens on port 1194.",
    )
    # Confirmed, it ranks at its full score at once, and the next run leaves it so.
    confirmed = await client.patch(
        f"/memories/{ids['stale']}", json={"action": "confirm"}, headers=tenancy.headers
    )
    assert confirmed.status_code == 200
    assert (await build_items(client, tenancy))[ids["stale"]]["components"]["retention"] == 1.0
    assert (await run(client, tenancy))["changes"] == []


async def test_a_reference_lifts_a_stale_facts_rank(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    old = days_before(400, datetime.now(UTC))
    ids = await write_all(
        client, tenancy, {"stale": fact("The staging VPN listens on port 1194.", occurred_at=old)}
    )
    assert [c["rule"] for c in (await run(client, tenancy))["changes"]] == ["fact_stale"]
    expanded = await client.post(
        "/context/expand", json={"memory_id": ids["stale"]}, headers=tenancy.headers
    )
    assert expanded.status_code == 200
    assert (await build_items(client, tenancy))[ids["stale"]]["components"]["retention"] == 1.0
    assert (await run(client, tenancy))["changes"] == []
