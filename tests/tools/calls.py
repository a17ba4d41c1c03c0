"""Helpers of the tools' tests: a tool call through the API, a memory written."""

from typing import Any

import httpx

from tests.factories import Tenancy, write

TOOLS = "/agents/newton/tools"


async def call(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    name: str,
    arguments: str | dict[str, Any],
    **extra: Any,
) -> httpx.Response:
    return await client.post(
        f"{TOOLS}/{name}", json={"arguments": arguments, **extra}, headers=tenancy.headers
    )


async def result(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    name: str,
    arguments: str | dict[str, Any],
    **extra: Any,
) -> dict[str, Any]:
    """A call that must succeed: its result."""
    response = await call(client, tenancy, name, arguments, **extra)
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


async def remember(client: httpx.AsyncClient, tenancy: Tenancy, content: str) -> str:
    """A fact of newton's; its id."""
    written = await write(client, tenancy, {"kind": "fact", "content": content})
    memory_id: str = written["id"]
    return memory_id


def memory_ids(found: dict[str, Any]) -> list[str]:
    return [r["id"] for r in found["references"] if r["kind"] == "memory"]
