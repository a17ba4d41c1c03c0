"""Associative recall over HTTP: what shares a name with a build's strongest hit comes along,
linked, though nothing of it is like the input; a name many memories hold ties nothing."""

from typing import Any

import httpx

from app.core.worker import Worker
from tests.factories import Tenancy, decision, put_agent, write

QUESTION = "Should we go ahead with the standing desk purchase?"
UNRELATED = [
    "The office plants are watered on Mondays.",
    "Parking permits renew every January.",
    "The coffee machine descales itself at night.",
    "Visitors sign in at the front desk before ten.",
    "The fire drill is on the first Tuesday of the quarter.",
    "The printer on the third floor jams with thick paper.",
    "Lunch vouchers are handed out on Fridays.",
    "The meeting rooms are booked through the intranet.",
]


async def _build(client: httpx.AsyncClient, tenancy: Tenancy, text: str) -> dict[str, Any]:
    response = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": "newton", "input": text, "budget": 2000},
    )
    assert response.status_code == 200, response.text
    built: dict[str, Any] = response.json()
    return built


def _items(built: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {i["memory_id"]: i for layer in built["layers"] for i in layer["items"]}


async def test_the_quote_behind_the_decision_comes_along(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    chosen = await write(client, tenancy, decision("Buy the standing desks from Ergonix"))
    quote = await write(
        client,
        tenancy,
        {"kind": "fact", "content": "Ergonix quoted 420 EUR per unit, delivered in three weeks."},
    )
    for text in UNRELATED:
        await write(client, tenancy, {"kind": "fact", "content": text})
    await worker.drain()

    items = _items(await _build(client, tenancy, QUESTION))

    assert items[chosen["id"]]["reason"] == "meaning"
    linked = items[quote["id"]]
    assert linked["reason"] == "linked"
    assert linked["link"]["anchor"] == "ergonix"
    assert linked["link"]["memory_id"] == chosen["id"]
    assert linked["components"]["link"] > 0


async def test_a_name_most_memories_hold_ties_nothing(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    """ "Ergonix" in sixty memories is no more telling than "the": nothing comes through it."""
    await put_agent(client, tenancy)
    await write(client, tenancy, decision("Buy the standing desks from Ergonix"))
    quote = await write(
        client,
        tenancy,
        {"kind": "fact", "content": "Ergonix quoted 420 EUR per unit, delivered in three weeks."},
    )
    for n in range(60):
        content = f"Ergonix ticket {n}: a chair armrest was loose and got fixed."
        await write(client, tenancy, {"kind": "fact", "content": content})
    await worker.drain()

    items = _items(await _build(client, tenancy, QUESTION))

    assert quote["id"] not in items
    assert all(item["reason"] != "linked" for item in items.values())
