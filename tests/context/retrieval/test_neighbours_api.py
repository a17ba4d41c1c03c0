"""Timeline neighbours on real memories: an episode of the hit's own conversation or session, or
within the configured gap of it, never one weeks away nor one that only was written with it."""

from typing import Any

import httpx
import pytest

from app.core.worker import Worker
from tests.context.conftest import SEED_CENSORS
from tests.context.distractors import distractors
from tests.context.test_build_api import build
from tests.context.test_worked_example import DECISIONS, FACTS, PROCEDURE
from tests.factories import Tenancy, put_agent

NEWTON: dict[str, Any] = {
    "kind": "episode",
    "title": "Newton storage architecture discussion",
    "detail": "Chose Postgres + pgvector, rejected multi-service approaches.",
    "participants": ["Tim"],
}
# The design's worked example, tried as a new user would: its discussion on 22 September, and
# afternoons about other things weeks before and after it.
DATED: list[tuple[dict[str, Any], str, str]] = [
    (NEWTON, "2026-09-22T14:00:00Z", "2026-09-22T16:00:00Z"),
    (
        {
            "kind": "episode",
            "title": "CE SQLite migration",
            "detail": "Abstracting the storage layer first made the backend swap painless.",
        },
        "2026-08-02T09:00:00Z",
        "2026-08-02T12:00:00Z",
    ),
]
UNRELATED = [
    ("fantasy novel", "Read two chapters of the fantasy novel aloud.", "2026-07-29"),
    ("dog training", "The dog learned to wait at the door.", "2026-10-02"),
    ("marathon training", "Planned the long runs before the marathon.", "2026-10-02"),
]


async def _write(client: httpx.AsyncClient, tenancy: Tenancy, bodies: list[Any]) -> list[str]:
    response = await client.post(
        "/agents/newton/memories/batch", headers=tenancy.headers, json={"memories": bodies}
    )
    assert response.status_code == 201, response.text
    return [memory["id"] for memory in response.json()["memories"]]


def _episodes(dating: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The example's episodes and the unrelated afternoons, dated as `dating` says: by their
    end alone, or not at all."""
    example = [
        body | ({"ended_at": ended} if dating == "ended_at" else {}) for body, _, ended in DATED
    ]
    unrelated = [
        {"kind": "episode", "title": f"Afternoon about the {topic}", "detail": detail}
        | ({"ended_at": f"{day}T17:00:00Z"} if dating == "ended_at" else {})
        for topic, detail, day in UNRELATED
    ]
    return example, unrelated


@pytest.mark.parametrize("dating", ["ended_at", "undated"])
async def test_episodes_weeks_away_are_no_neighbours_of_the_newton_discussion(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker, dating: str
) -> None:
    await put_agent(client, tenancy)
    example, unrelated = _episodes(dating)
    decisions = [
        {"kind": "decision", "decision": text, "reasons": [reason], "confidence": confidence}
        for text, reason, confidence in DECISIONS
    ]
    censors = [
        {"kind": "censor", "trigger_pattern": pattern, "reason": reason, "action": action}
        for pattern, reason, action in SEED_CENSORS
    ]
    facts = [{"kind": "fact", "content": content} for content in FACTS]
    ids = await _write(client, tenancy, [*decisions, *facts, PROCEDURE, *example, *censors])
    others = set(await _write(client, tenancy, unrelated))
    bodies = distractors()
    for start in range(0, len(bodies), 100):
        others |= set(await _write(client, tenancy, bodies[start : start + 100]))
    await worker.drain()
    result = await build(
        client, tenancy, input="Should we use Redis for caching in Newton?", budget=8000
    )
    items = {item["memory_id"]: item for layer in result["layers"] for item in layer["items"]}
    discussion = ids[len(decisions) + len(facts) + 1]
    assert discussion in items  # the strong hit whose neighbours are looked for
    assert not others & items.keys()
    assert "Afternoon about the" not in result["context"]
    if dating == "ended_at":  # it happened by its end: on its day, not when it was written
        experience = result["context"].split("## Past Experience\n")[1]
        assert "On 22 September 2026:\n- Newton storage architecture" in experience


async def test_an_episode_while_the_hit_lasted_is_its_neighbour(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    during = {
        "kind": "episode",
        "detail": "Tim sketched the schema on the whiteboard.",
        "started_at": "2026-09-22T15:20:00Z",  # 80 minutes after the discussion began
    }
    after = {
        "kind": "episode",
        "detail": "Ordered lunch for the team.",
        "started_at": "2026-09-22T16:20:00Z",  # 20 minutes after it ended
    }
    later = {
        "kind": "episode",
        "detail": "Watered the office plants.",
        "started_at": "2026-09-22T17:30:00Z",  # 90 minutes after it ended: another matter
    }
    session = NEWTON | {"started_at": DATED[0][1], "ended_at": DATED[0][2]}
    hit, *around = await _write(client, tenancy, [session, during, after, later])
    await worker.drain()
    result = await build(client, tenancy, input="What did we decide about Newton's storage?")
    items = {item["memory_id"]: item for layer in result["layers"] for item in layer["items"]}
    assert hit in items
    adjacency = [items[i]["components"]["adjacency"] if i in items else 0.0 for i in around]
    assert adjacency[0] > 0
    assert adjacency[1] > 0
    assert adjacency[2] == 0.0


async def test_turns_of_one_session_are_neighbours_and_of_the_next_are_not(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    """As a conversation is imported: every turn one episode at its session's time plus a second
    a turn, two sessions a week apart in one batch."""
    await put_agent(client, tenancy)
    sessions = {
        "2023-05-08T13:56:0{}Z": [
            "Melanie: I finally signed up for the pottery class!",
            "Caroline: That's great, when does it start?",
            "Melanie: Next Tuesday at the community center.",
        ],
        "2023-05-15T10:00:0{}Z": ["Melanie: The pottery teacher liked my first bowl."],
    }
    bodies = [
        {"kind": "episode", "detail": turn, "started_at": at.format(i), "occurred_at": at.format(i)}
        for at, turns in sessions.items()
        for i, turn in enumerate(turns)
    ]
    signed, *rest = await _write(client, tenancy, bodies)
    await worker.drain()
    result = await build(client, tenancy, input="What class did Melanie sign up for?")
    items = {item["memory_id"]: item for layer in result["layers"] for item in layer["items"]}
    assert signed in items
    adjacency = [items[i]["components"]["adjacency"] if i in items else 0.0 for i in rest]
    assert adjacency[0] > 0
    assert adjacency[1] > 0
    assert adjacency[2] == 0.0


async def test_episodes_written_one_by_one_without_a_time_are_no_neighbours(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    """Their time is when they were written, which says nothing of what happened together."""
    await put_agent(client, tenancy)
    written = []
    for detail in [
        "Reviewed the quarterly invoices with finance.",
        "Melanie signed up for the pottery class at the community center.",
        "Repainted the garden fence.",
    ]:
        written.append(await _write(client, tenancy, [{"kind": "episode", "detail": detail}]))
    await worker.drain()
    result = await build(client, tenancy, input="What class did Melanie sign up for?")
    items = {item["memory_id"]: item for layer in result["layers"] for item in layer["items"]}
    assert written[1][0] in items
    assert all(item["components"]["adjacency"] == 0.0 for item in items.values())
