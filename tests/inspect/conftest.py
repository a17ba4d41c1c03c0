"""An agent with memories and builds to inspect, one memory written to break an HTML page."""

from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from app.core.worker import Worker
from tests.factories import Tenancy, decision, fact, put_agent

HOSTILE = '<script>alert("owned")</script> & <b>bold</b> Redis needs its own backups.'
QUESTION = "Should we use Redis for caching?"


@dataclass(frozen=True)
class Inspected:
    """What the pages of these tests show: a build and the memories in and out of it."""

    build: dict[str, Any]
    hostile_id: str
    decision_id: str


def cookie(tenancy: Tenancy) -> dict[str, str]:
    """The login cookie of a tenant, as a browser sends it after the login form."""
    return {"Cookie": f"ce_inspect={tenancy.key}"}


@pytest.fixture
async def inspected(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> Inspected:
    """Memories of an agent, embedded, and a build too small for all of them."""
    await put_agent(client, tenancy)
    notes = [fact(f"Redis cache note {n}: eviction, persistence, memory.") for n in range(6)]
    bodies = [fact(HOSTILE), decision("Chose Postgres over Redis for the cache"), *notes]
    response = await client.post(
        "/agents/newton/memories/batch", headers=tenancy.headers, json={"memories": bodies}
    )
    assert response.status_code == 201, response.text
    hostile, chosen = response.json()["memories"][:2]
    await worker.drain()
    response = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": "newton", "input": QUESTION, "budget": 160},
    )
    assert response.status_code == 200, response.text
    return Inspected(response.json(), hostile["id"], chosen["id"])
