"""GET /agents: the tenant's agents, newest first, page by page along a keyset cursor."""

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from tests.factories import Tenancy, put_agent

START = datetime(2026, 11, 1, tzinfo=UTC)


async def _agents(
    client: httpx.AsyncClient, tenancy: Tenancy, connection: AsyncConnection, names: list[str]
) -> None:
    """Agents created a minute apart, in the order given; the last two at the same time."""
    for name in names:
        await put_agent(client, tenancy, name)
    for minute, name in enumerate(names):
        created = START + timedelta(minutes=min(minute, len(names) - 2))
        await connection.execute(
            text(
                "UPDATE agent SET created_at = :at WHERE name = :name "
                "AND tenant_id = (SELECT id FROM tenant WHERE name = :tenant)"
            ),
            {"at": created, "name": name, "tenant": tenancy.tenant},
        )


async def _page(client: httpx.AsyncClient, tenancy: Tenancy, **params: str | int) -> dict[str, Any]:
    response = await client.get("/agents", params=params, headers=tenancy.headers)
    assert response.status_code == 200, response.text
    page: dict[str, Any] = response.json()
    return page


def _names(page: dict[str, Any]) -> list[str]:
    return [agent["agent_id"] for agent in page["items"]]


async def test_agents_are_listed_newest_first_page_by_page(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    other_tenancy: Tenancy,
    connection: AsyncConnection,
) -> None:
    await _agents(client, tenancy, connection, ["ada", "bob", "cy", "dee"])
    await put_agent(client, other_tenancy, "eve")  # another tenant's: never listed

    first = await _page(client, tenancy, limit=2)
    # cy and dee were created at the same microsecond: the greater name comes first.
    assert _names(first) == ["dee", "cy"]
    cursor = first["next_cursor"]
    minute = (START + timedelta(minutes=2)).timestamp()
    assert cursor == f"{int(minute * 1_000_000)}_cy"
    second = await _page(client, tenancy, limit=2, cursor=cursor)
    assert _names(second) == ["bob", "ada"]
    assert second["next_cursor"] is None
    whole = await _page(client, tenancy)
    assert _names(whole) == ["dee", "cy", "bob", "ada"]
    assert whole["items"][0]["identity"] == {
        "name": "Dee",
        "description": None,
        "traits": ["analytical"],
        "core_rules": [],
    }
    others = await _page(client, other_tenancy)
    assert _names(others) == ["eve"]


async def test_any_position_is_a_cursor(
    client: httpx.AsyncClient, tenancy: Tenancy, connection: AsyncConnection
) -> None:
    await _agents(client, tenancy, connection, ["ada", "bob", "cy"])
    at_bob = int((START + timedelta(minutes=1)).timestamp() * 1_000_000)
    before_bob = await _page(client, tenancy, cursor=f"{at_bob}_bob")
    assert _names(before_bob) == ["ada"]
    # At bob's time, a name after his: bob and all before him.
    after_bob = await _page(client, tenancy, cursor=f"{at_bob}_bz")
    assert _names(after_bob) == ["bob", "ada"]
    assert (await _page(client, tenancy, cursor="0_a"))["items"] == []
    latest = await _page(client, tenancy, cursor="999999999999999999_z")
    assert len(latest["items"]) == 3


async def test_a_bad_cursor_or_limit_is_422_naming_it(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    for params, field in (
        ({"cursor": "newton"}, "cursor"),
        ({"cursor": "12_bad name"}, "cursor"),
        ({"limit": 0}, "limit"),
        ({"limit": "many"}, "limit"),
    ):
        response = await client.get("/agents", params=params, headers=tenancy.headers)
        assert response.status_code == 422, params
        assert response.json()["errors"][0]["loc"] == ["query", field]
    unauthenticated = await client.get("/agents")
    assert unauthenticated.status_code == 401
