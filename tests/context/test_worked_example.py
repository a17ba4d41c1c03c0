"""The design's worked example ("Should we use Redis for caching in Newton?") among 250 other
memories, fifty of each kind: unrelated ones about household topics, or ones of the same domain
(the team's other services, databases and decisions about infrastructure). Either way the
context comes out as the design shows it, without noise."""

import re
from collections.abc import Callable
from typing import Any, NamedTuple

import httpx
import pytest

from app.core.worker import Worker
from tests.context.conftest import SEED_CENSORS
from tests.context.distractors import distractors
from tests.context.domain_distractors import domain_distractors
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
# The other memories the example is built among, and words that only they use.
AMONG: dict[str, Callable[[], list[dict[str, Any]]]] = {
    "unrelated": distractors,
    "same-domain": domain_distractors,
}
NOISE = {
    "unrelated": r"garden|choir|bakery|Lisbon|aquarium|chess|pottery|marathon",
    "same-domain": r"billing|Kafka|RabbitMQ|Elasticsearch|ClickHouse|Cassandra|MongoDB|MySQL|"
    r"Terraform|Kubernetes|EKS|nginx|CDN|warehouse",
}


class Example(NamedTuple):
    """The example's memory ids, the build for its question, and what it was built among."""

    ids: set[str]
    built: dict[str, Any]
    among: str


async def _write_all(client: httpx.AsyncClient, tenancy: Tenancy, bodies: list[Any]) -> list[str]:
    response = await client.post(
        f"/agents/{AGENT}/memories/batch", headers=tenancy.headers, json={"memories": bodies}
    )
    assert response.status_code == 201, response.text
    return [memory["id"] for memory in response.json()["memories"]]


async def _newton(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker, others: list[dict[str, Any]]
) -> set[str]:
    """The example's agent and memories, then the others; the example's memory ids."""
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
    for start in range(0, len(others), 100):
        written = await _write_all(client, tenancy, others[start : start + 100])
        assert not set(written) & set(ids)  # none of them repeats a fact of the example
    await worker.drain()
    return set(ids)


def _section(context: str, header: str) -> list[str]:
    """The lines of one section, blank lines aside; none when the context has no such section."""
    if f"## {header}\n" not in context:
        return []
    body = context.split(f"## {header}\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in body.split("\n") if line]


def _loaded(built: dict[str, Any]) -> set[str]:
    return {item["memory_id"] for layer in built["layers"] for item in layer["items"]}


def _one_line(text: str, reason: str, confidence: float) -> set[str]:
    """A decision as a context lists it on its one line: text, outcome and confidence, and its
    main reason quoted where the budget leaves room for it."""
    line = f"- {text} [success, {confidence:.2f}]"
    return {line, f'{line} — "{reason}"'}


@pytest.fixture(params=list(AMONG))
async def example(
    request: pytest.FixtureRequest, client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> Example:
    """The example among one set of other memories, and the build for its question."""
    among: str = request.param
    ids = await _newton(client, tenancy, worker, AMONG[among]())
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
    return Example(ids, response.json(), among)


@pytest.mark.parametrize(
    "example",
    [
        "unrelated",
        pytest.param(
            "same-domain",
            marks=pytest.mark.xfail(
                strict=True,
                reason="7 of the team's other memories come in (measured 2026-11-29; 8 while "
                "everyday words such as 'shard' tied memories, 16 on 2026-11-27): by meaning, the "
                "mobile API's Cache-Control decision and fact, the CDN fact, the Renovate "
                "decision and an incident; tied to a hit by the anchor docker-compose, the CI's "
                "fact; by the words the Cache-Control decision shares with it, the CDN caching "
                "constraint",
            ),
        ),
    ],
    indirect=True,
)
async def test_no_unrelated_memory_comes_along(example: Example) -> None:
    ids, built, among = example
    context = built["context"]
    assert built["frame"]["name"] == "decision"
    assert _loaded(built) <= ids  # 250 other memories, none of them in any section
    assert not re.search(NOISE[among], context)
    assert "- WARN: Don't decide without at least 2 alternatives" in context
    assert _section(context, "Procedure: Architecture Decision")[1:] == [
        f"- {pattern}" for pattern in PROCEDURE["core_patterns"]
    ]
    assert set(_section(context, "Known Information")) >= {f"- {f}" for f in FACTS[:3]}
    experience = "\n".join(_section(context, "Past Experience"))
    assert "Newton storage architecture discussion (2h, with Tim)" in experience


@pytest.mark.parametrize(
    "example",
    [
        pytest.param(
            "unrelated",
            marks=pytest.mark.xfail(
                strict=True,
                reason="three are left out (measured 2026-11-29): the BLOCK constraint "
                "(relevance 0.14: no word of the question, little similarity, not the frame's; "
                "the procedure holds 3 of its 6 words), the pgvector performance fact (tied by "
                "'pgvector' as strongly as two decisions, but a build lets in its strongest 3 "
                "ties) and the CE SQLite episode (tied only through the SQLite decision: a "
                "second hop, too weak); the rest is as the design shows it, nothing unrelated",
            ),
        ),
        pytest.param(
            "same-domain",
            marks=pytest.mark.xfail(
                strict=True,
                reason="four are missing (measured 2026-11-29: the SQLite decision, the "
                "pgvector fact, the CE SQLite episode and the BLOCK constraint) and 7 other "
                "memories come in",
            ),
        ),
    ],
    indirect=True,
)
async def test_the_design_example_comes_out_as_the_design_shows_it(example: Example) -> None:
    ids, built, among = example
    context = built["context"]
    decisions = _section(context, "Relevant Past Decisions")
    assert len(decisions) == len(DECISIONS), decisions
    for text, reason, confidence in DECISIONS:
        assert _one_line(text, reason, confidence) & set(decisions), text
    assert sorted(_section(context, "Active Constraints")) == sorted(
        f"- {action.upper()}: {pattern} — {reason}" for pattern, reason, action in SEED_CENSORS
    )
    assert _section(context, "Procedure: Architecture Decision")[1:] == [
        f"- {pattern}" for pattern in PROCEDURE["core_patterns"]
    ]
    assert sorted(_section(context, "Known Information")) == sorted(f"- {f}" for f in FACTS)
    experience = "\n".join(_section(context, "Past Experience"))
    assert "Newton storage architecture discussion (2h, with Tim)" in experience
    assert "CE SQLite migration (3h)" in experience
    assert _loaded(built) <= ids
    assert not re.search(NOISE[among], context)
