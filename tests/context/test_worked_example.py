"""The design's worked example ("Should we use Redis for caching in Newton?") among fifty
unrelated memories of each kind: the context comes out as the design shows it, without noise."""

import re
from typing import Any

import httpx
import pytest

from app.core.worker import Worker
from tests.context.conftest import SEED_CENSORS
from tests.context.distractors import distractors
from tests.factories import Tenancy

AGENT = "newton-example"
DECISIONS = [
    (
        "Chose Postgres + pgvector over separate ChromaDB for unified storage",
        "Unification reduces operational surface. One backup, one monitor, one connection pool.",
        0.85,
    ),
    (
        "Built CE with SQLite first, migrated to Postgres later",
        "Start simple, migrate when proven. Abstract storage layer made migration painless.",
        0.80,
    ),
    (
        "Rejected Qdrant in favor of pgvector",
        "Operational simplicity beat raw vector performance.",
        0.82,
    ),
]
FACTS = [
    "PostgreSQL supports UNLOGGED tables for cache-like workloads (no WAL overhead)",
    "Redis adds a separate service to manage, monitor, and backup",
    "Newton's docker-compose currently has 3 services (newton, postgres, dashboard)",
    "pgvector query performance: 0.37s for hybrid search over 300+ records",
]
PROCEDURE = {
    "kind": "procedure",
    "name": "Architecture Decision",
    "description": "How to choose a storage, cache or runtime component.",
    "core_patterns": [
        "Query similar past decisions before committing",
        "Evaluate at least 2 alternatives with pros/cons",
        "Record decision with confidence BEFORE implementing",
        "Consider operational cost, not just capability",
    ],
}
EPISODES = [
    {
        "kind": "episode",
        "title": "Newton storage architecture discussion",
        "detail": "Chose Postgres + pgvector, rejected multi-service approaches.",
        "participants": ["Tim"],
        "started_at": "2026-09-10T14:00:00Z",
        "ended_at": "2026-09-10T16:00:00Z",
    },
    {
        "kind": "episode",
        "title": "CE SQLite migration",
        "detail": "Abstracting the storage layer first made the backend swap painless.",
        "started_at": "2026-08-02T09:00:00Z",
        "ended_at": "2026-08-02T12:00:00Z",
    },
]


async def _write_all(client: httpx.AsyncClient, tenancy: Tenancy, bodies: list[Any]) -> list[str]:
    response = await client.post(
        f"/agents/{AGENT}/memories/batch", headers=tenancy.headers, json={"memories": bodies}
    )
    assert response.status_code == 201, response.text
    return [memory["id"] for memory in response.json()["memories"]]


async def _newton(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> set[str]:
    """The example's agent and memories, then the distractors; the example's memory ids."""
    headers = tenancy.headers
    identity = {"name": "Newton agent", "traits": ["analytical", "cautious", "curious"]}
    await client.put(f"/agents/{AGENT}", headers=headers, json={"identity": identity})
    await client.put(
        f"/agents/{AGENT}/working-memory",
        headers=headers,
        json={"current_task": "Designing Newton's storage and runtime architecture."},
    )
    decisions = [
        {"kind": "decision", "decision": text, "reasons": [reason], "confidence": confidence}
        for text, reason, confidence in DECISIONS
    ]
    censors = [
        {"kind": "censor", "trigger_pattern": pattern, "reason": reason, "action": action}
        for pattern, reason, action in SEED_CENSORS
    ]
    facts = [{"kind": "fact", "content": content} for content in FACTS]
    ids = await _write_all(client, tenancy, decisions + facts + [PROCEDURE, *EPISODES, *censors])
    for decision_id in ids[:3]:
        response = await client.patch(
            f"/memories/{decision_id}",
            headers=headers,
            json={"action": "record_outcome", "outcome": "success"},
        )
        assert response.status_code == 200, response.text
    others = distractors()
    for start in range(0, len(others), 100):
        await _write_all(client, tenancy, others[start : start + 100])
    await worker.drain()
    return set(ids)


def _section(context: str, header: str) -> list[str]:
    """The lines of one section, blank lines aside."""
    body = context.split(f"## {header}\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in body.split("\n") if line]


@pytest.fixture
async def example(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> tuple[set[str], dict[str, Any]]:
    """The example's memory ids, and the build for its question."""
    ids = await _newton(client, tenancy, worker)
    response = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={
            "agent_id": AGENT,
            "input": "Should we use Redis for caching in Newton?",
            "budget": 12000,
        },
    )
    assert response.status_code == 200, response.text
    built: dict[str, Any] = response.json()
    return ids, built


async def test_no_unrelated_memory_comes_along(example: tuple[set[str], dict[str, Any]]) -> None:
    ids, built = example
    context = built["context"]
    assert built["frame"]["name"] == "decision"
    loaded = {item["memory_id"] for layer in built["layers"] for item in layer["items"]}
    assert loaded <= ids  # 250 unrelated memories, none of them in any section
    assert not re.search(r"garden|choir|bakery|Lisbon|aquarium|chess|pottery|marathon", context)
    assert "- WARN: Don't decide without at least 2 alternatives" in context
    assert _section(context, "Procedure: Architecture Decision")[1:] == [
        f"- {pattern}" for pattern in PROCEDURE["core_patterns"]
    ]
    assert set(_section(context, "Known Information")) >= {f"- {f}" for f in FACTS[:3]}
    experience = "\n".join(_section(context, "Past Experience"))
    assert "Newton storage architecture discussion (2h, with Tim)" in experience


@pytest.mark.xfail(
    strict=True,
    reason="all-MiniLM-L6-v2 puts the example's decisions at 0.04-0.16 similarity to the "
    "question, level with the unrelated ones (mean 0.055, max 0.162): nothing in the input "
    "tells them apart yet",
)
async def test_the_design_example_comes_out_as_the_design_shows_it(
    example: tuple[set[str], dict[str, Any]],
) -> None:
    ids, built = example
    context = built["context"]
    assert _section(context, "Relevant Past Decisions") == [
        f'- {text} [success, {confidence:.2f}] — "{reason}"'
        for text, reason, confidence in DECISIONS
    ]
    assert _section(context, "Active Constraints") == [
        "- BLOCK: Don't add infrastructure without evaluating operational cost — learned from "
        "over-engineering incidents",
        "- WARN: Don't decide without at least 2 alternatives — architecture decisions need "
        "comparison",
    ]
    assert sorted(_section(context, "Known Information")) == sorted(f"- {f}" for f in FACTS)
    experience = "\n".join(_section(context, "Past Experience"))
    assert "CE SQLite migration (3h)" in experience
    loaded = {item["memory_id"] for layer in built["layers"] for item in layer["items"]}
    assert loaded == ids
