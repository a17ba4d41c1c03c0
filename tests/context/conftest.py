"""An agent with the memories of the seed's Redis example."""

from typing import Any

import httpx
import pytest

from app.core.worker import Worker
from tests.factories import Tenancy, write

DECISIONS = [
    (
        "Chose Postgres UNLOGGED tables over Redis for the session cache",
        ["One service fewer to run; cache latency was good enough."],
        0.85,
        "success",
    ),
    (
        "Rejected Memcached for caching API responses",
        ["Another service to operate for a small gain."],
        0.80,
        "success",
    ),
    (
        "Chose Postgres + pgvector over separate ChromaDB for unified storage",
        ["Unification reduces operational surface: one backup, one monitor, one connection pool."],
        0.82,
        "success",
    ),
]
# The seed's two constraints: (pattern, reason, action).
SEED_CENSORS = [
    (
        "Don't add infrastructure without evaluating operational cost",
        "learned from over-engineering incidents",
        "block",
    ),
    (
        "Don't decide without at least 2 alternatives",
        "architecture decisions need comparison",
        "warn",
    ),
]
FACTS = [
    "PostgreSQL supports UNLOGGED tables for cache-like workloads (no WAL overhead).",
    "Redis adds a separate service to manage, monitor, and back up.",
    "Newton's docker-compose currently has 3 services: newton, postgres, dashboard.",
    "pgvector hybrid search over 300 records takes 0.37 s.",
    "Tim prefers Celsius, not Fahrenheit.",
]


NEWTON_PROCEDURE: dict[str, Any] = {
    "kind": "procedure",
    "name": "Architecture Decision",
    "description": "How to evaluate a new cache, queue or database before adding it.",
    "core_patterns": [
        "Query similar past decisions before committing",
        "Evaluate at least 2 alternatives with pros/cons",
        "Consider operational cost, not just capability",
    ],
}
NEWTON_EPISODE: dict[str, Any] = {
    "kind": "episode",
    "title": "Caching discussion",
    "detail": "Two hours with Tim comparing Redis, Memcached and Postgres for Newton's "
    "cache; chose Postgres.",
    "participants": ["Tim"],
    "started_at": "2026-10-01T14:00:00Z",
}


@pytest.fixture
async def newton(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> dict[str, Any]:
    """Write the example agent's memories, run the worker, and return their ids by text."""
    headers = tenancy.headers
    await client.put(
        "/agents/newton",
        headers=headers,
        json={
            "identity": {"name": "Newton agent", "traits": ["analytical", "cautious", "curious"]},
            "model": "gpt-4o",
        },
    )
    await client.put(
        "/agents/newton/working-memory",
        headers=headers,
        json={"current_task": "Designing Newton's storage and runtime architecture."},
    )
    ids: dict[str, Any] = {}
    for decision, reasons, confidence, outcome in DECISIONS:
        memory = await write(
            client,
            tenancy,
            {
                "kind": "decision",
                "decision": decision,
                "reasons": reasons,
                "confidence": confidence,
            },
        )
        await client.patch(
            f"/memories/{memory['id']}",
            headers=headers,
            json={"action": "record_outcome", "outcome": outcome},
        )
        ids[decision] = memory["id"]
    for content in FACTS:
        ids[content] = (await write(client, tenancy, {"kind": "fact", "content": content}))["id"]
    ids["procedure"] = (await write(client, tenancy, NEWTON_PROCEDURE))["id"]
    ids["episode"] = (await write(client, tenancy, NEWTON_EPISODE))["id"]
    for pattern, reason, action in SEED_CENSORS:
        ids[pattern] = (
            await write(
                client,
                tenancy,
                {"kind": "censor", "trigger_pattern": pattern, "reason": reason, "action": action},
            )
        )["id"]
    await worker.drain()
    return ids
