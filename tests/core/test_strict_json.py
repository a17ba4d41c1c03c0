"""JSON bodies are taken as their JSON types say, in UTF-8: nothing is coerced or guessed."""

import json
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from tests.factories import Tenancy, fact, procedure, put_agent, write

BUILD = {"agent_id": "newton", "input": "Should we use Redis?"}


async def post(
    client: httpx.AsyncClient, tenancy: Tenancy, url: str, body: object
) -> httpx.Response:
    return await client.post(url, json=body, headers=tenancy.headers)


async def stored(client: httpx.AsyncClient, tenancy: Tenancy) -> list[dict[str, Any]]:
    listed = await client.get("/agents/newton/memories", headers=tenancy.headers)
    items: list[dict[str, Any]] = listed.json()["items"]
    return items


def assert_rejects(response: httpx.Response, loc: list[str | int]) -> None:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert [error["loc"] for error in response.json()["errors"]] == [loc]


@pytest.mark.parametrize(
    ("field", "value"),
    [("budget", True), ("budget", "5"), ("budget", 2000.5), ("input", 5), ("kinds", "fact")],
)
async def test_build_takes_no_value_of_another_json_type(
    client: httpx.AsyncClient, tenancy: Tenancy, field: str, value: object
) -> None:
    await put_agent(client, tenancy)
    response = await post(client, tenancy, "/context/build", {**BUILD, field: value})
    assert_rejects(response, ["body", field])


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("occurred_at", 0),
        ("occurred_at", "1700000000"),
        ("occurred_at", "2026-01-31 09:30:00Z"),
        ("confidence", "0.9"),
        ("confidence", True),
        ("metadata", "{}"),
    ],
)
async def test_memory_takes_no_value_of_another_json_type(
    client: httpx.AsyncClient, tenancy: Tenancy, field: str, value: object
) -> None:
    await put_agent(client, tenancy)
    body = {**fact(), field: value}
    response = await post(client, tenancy, "/agents/newton/memories", body)
    assert_rejects(response, ["body", "fact", field])
    assert await stored(client, tenancy) == []


async def test_json_types_that_mean_the_field_are_taken(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    memory = await write(
        client, tenancy, fact(confidence=1, occurred_at="2026-01-31T09:30:00.123+01:00")
    )
    assert memory["confidence"] == 1.0
    occurred_at = datetime.fromisoformat(memory["provenance"]["occurred_at"])
    assert occurred_at == datetime(2026, 1, 31, 8, 30, 0, 123000, tzinfo=UTC)
    expanded = await post(client, tenancy, "/context/expand", {"memory_id": memory["id"]})
    assert expanded.status_code == 200
    # JSON has one number type: 2000.0 is the integer 2000 (to JSON Schema as well).
    built = await post(client, tenancy, "/context/build", {**BUILD, "budget": 2000.0})
    assert built.json()["totals"]["budget"] == 2000


async def test_procedure_activation_needs_a_json_boolean(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    memory = await write(client, tenancy, procedure())
    url = f"/memories/{memory['id']}"
    for success in (0, 1, "true"):
        response = await client.patch(
            url, json={"action": "record_activation", "success": success}, headers=tenancy.headers
        )
        assert_rejects(response, ["body", "record_activation", "success"])
    read = (await client.get(url, headers=tenancy.headers)).json()
    assert read["fields"]["activation_count"] == 0


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32", "latin-1"])
async def test_body_not_in_utf8_is_422_and_stores_nothing(
    client: httpx.AsyncClient, tenancy: Tenancy, encoding: str
) -> None:
    await put_agent(client, tenancy)
    body = json.dumps(fact("Café au lait"), ensure_ascii=False).encode(encoding)
    response = await client.post(
        "/agents/newton/memories",
        content=body,
        headers={**tenancy.headers, "content-type": "application/json"},
    )
    assert_rejects(response, ["body"])
    assert "UTF-8" in response.json()["detail"]
    assert await stored(client, tenancy) == []
