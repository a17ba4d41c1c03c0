"""Bad input gets a clear problem+json 4xx, never a 500, and changes nothing."""

import json
from collections.abc import AsyncIterator

import httpx
import pytest

from app.core.config import Settings
from tests.factories import Tenancy, fact, put_agent, write

BAD_BODIES = [
    b"not json",
    b"[]",
    b'{"kind": "dream", "content": "x"}',
    b'{"kind": "fact"}',
    b'{"kind": "fact", "content": ""}',
    b'{"kind": "fact", "content": "x", "confidence": "high"}',
    b'{"kind": "fact", "content": "x", "confidence": NaN}',
    b'{"kind": "fact", "content": "x", "surprise": 1}',
    b'{"kind": "fact", "content": "x", "occurred_at": "yesterday"}',
    b'{"kind": "fact", "content": "x", "occurred_at": "2026-01-01T00:00:00"}',
    b'{"kind": "censor", "trigger_pattern": "x", "reason": "y", "action": "explode"}',
    b'{"kind": "fact", "content": "\\u0000"}',
    b"[" * 5000 + b"]" * 5000,  # deeper than the JSON parser goes
]


@pytest.mark.parametrize("body", BAD_BODIES)
async def test_bad_memory_is_422_and_stores_nothing(
    client: httpx.AsyncClient, tenancy: Tenancy, body: bytes
) -> None:
    await put_agent(client, tenancy)
    response = await client.post(
        "/agents/newton/memories",
        content=body,
        headers={**tenancy.headers, "content-type": "application/json"},
    )
    assert response.status_code == 422, response.text
    problem = response.json()
    assert response.headers["content-type"] == "application/problem+json"
    assert problem["status"] == 422
    assert problem["errors"][0]["loc"]
    listed = await client.get("/agents/newton/memories", headers=tenancy.headers)
    assert listed.json()["items"] == []


async def test_body_over_the_limit_is_413(
    client: httpx.AsyncClient, tenancy: Tenancy, settings: Settings
) -> None:
    await put_agent(client, tenancy)
    huge = json.dumps(fact("x" * settings.api.max_body_bytes))
    response = await client.post(
        "/agents/newton/memories",
        content=huge,
        headers={**tenancy.headers, "content-type": "application/json"},
    )
    assert response.status_code == 413
    assert "CE_API__MAX_BODY_BYTES" in response.json()["detail"]


async def test_streamed_body_over_the_limit_is_413(
    client: httpx.AsyncClient, tenancy: Tenancy, settings: Settings
) -> None:
    await put_agent(client, tenancy)
    chunk = b" " * 65536

    async def stream() -> AsyncIterator[bytes]:
        for _ in range(settings.api.max_body_bytes // len(chunk) + 2):
            yield chunk

    response = await client.post(
        "/agents/newton/memories",
        content=stream(),
        headers={**tenancy.headers, "content-type": "application/json"},
    )
    assert response.status_code == 413


async def test_unknown_route_is_problem_json(client: httpx.AsyncClient) -> None:
    response = await client.get("/nowhere")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"


@pytest.mark.parametrize(
    "extra",
    [
        {"metadata": {"x": float("nan")}},
        {"metadata": {"x": float("inf")}},
        {"metadata": {"\ud800": 1}},
        {"content": "lone \ud800 surrogate"},
        {"occurred_at": "0001-01-01T00:00:00+05:00"},
        {"occurred_at": "9999-12-31T23:59:59-05:00"},
        {"occurred_at": "0002-06-01T00:00:00Z"},
    ],
)
async def test_values_postgres_cannot_store_are_422(
    client: httpx.AsyncClient, tenancy: Tenancy, extra: dict[str, object]
) -> None:
    await put_agent(client, tenancy)
    body = json.dumps({**fact(), **extra}, allow_nan=True, ensure_ascii=True)
    response = await client.post(
        "/agents/newton/memories",
        content=body,
        headers={**tenancy.headers, "content-type": "application/json"},
    )
    assert response.status_code == 422, response.text


@pytest.mark.parametrize(
    "metadata",
    [
        "NaN",
        '{"x": NaN}',
        '{"x": Infinity}',
        '{"x": ' + "9" * 5000 + "}",
        '{"x": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"\\ud800": 1}',
    ],
)
async def test_metadata_filters_postgres_cannot_match_are_422(
    client: httpx.AsyncClient, tenancy: Tenancy, metadata: str
) -> None:
    await put_agent(client, tenancy)
    response = await client.get(
        "/agents/newton/memories", params={"metadata": metadata}, headers=tenancy.headers
    )
    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["loc"] == ["query", "metadata"]


async def test_metadata_keeps_integers_of_any_size(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    # jsonb stores numbers with arbitrary precision; so does the service.
    await put_agent(client, tenancy)
    big = {"trace": 10**30, "negative": -(2**70)}
    response = await client.post(
        "/agents/newton/memories", json=fact(metadata=big), headers=tenancy.headers
    )
    assert response.status_code == 201, response.text
    listed = await client.get(
        "/agents/newton/memories",
        params={"metadata": json.dumps({"trace": 10**30})},
        headers=tenancy.headers,
    )
    [found] = listed.json()["items"]
    assert found["metadata"] == big


@pytest.mark.parametrize(
    "cursor",
    [
        "garbage",
        "MjAyNi0wMS0wMVQwMDowMDowMCswMDowMHwwYjlmN2EwZS00ZjVl",  # an old, base64 cursor
        "1732233600000000_0B9F7A0E-4F5E-4C1E-9D3A-2F1C7E1B5A10",
        "-1_0b9f7a0e-4f5e-4c1e-9d3a-2f1c7e1b5a10",
        "1732233600000000_0b9f7a0e",
    ],
)
async def test_cursor_not_in_the_documented_form_is_422(
    client: httpx.AsyncClient, tenancy: Tenancy, cursor: str
) -> None:
    await put_agent(client, tenancy)
    response = await client.get(
        "/agents/newton/memories", params={"cursor": cursor}, headers=tenancy.headers
    )
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"] == ["query", "cursor"]


async def test_any_cursor_of_the_documented_form_is_a_position(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    written = await write(client, tenancy, fact())
    some_id = "0b9f7a0e-4f5e-4c1e-9d3a-2f1c7e1b5a10"

    async def listed(cursor: str, **params: str) -> list[str]:
        response = await client.get(
            "/agents/newton/memories",
            params={"cursor": cursor, **params},
            headers=tenancy.headers,
        )
        assert response.status_code == 200, response.text
        return [item["id"] for item in response.json()["items"]]

    assert await listed(f"0_{some_id}") == []  # before 1970: nothing was written before it
    assert await listed(f"{'9' * 18}_{some_id}") == [written["id"]]  # past year 9999
    assert await listed(f"{'9' * 18}_{some_id}", q="Redis") == [written["id"]]


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("TRACE", "/healthz", "GET"),
        ("PUT", "/healthz", "GET"),
        ("POST", "/agents/newton", "DELETE, GET, PUT"),
        ("PUT", "/agents", "GET"),
        ("PATCH", "/agents/newton/sessions/chat-1", "DELETE, GET"),
        ("OPTIONS", "/memories/0b9f7a0e-4f5e-4c1e-9d3a-2f1c7e1b5a10", "DELETE, GET, PATCH"),
    ],
)
async def test_method_not_allowed_names_every_allowed_method(
    client: httpx.AsyncClient, method: str, path: str, allowed: str
) -> None:
    response = await client.request(method, path)
    assert response.status_code == 405
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["allow"] == allowed
