"""Idempotency-Key on every POST of the API: a retry with the same key and body gets the first
response again (same status, same bytes, `Idempotent-Replayed: true`) and stores nothing; the
same key for another request answers 409; without a key every request runs as it always did."""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.core.worker import Worker
from app.models import Base
from tests.efforts.helpers import EFFORTS, SESSION, act, open_effort, say
from tests.factories import Tenancy, fact, put_agent, write
from tests.retention.writes import NOW, days_before, episode

KEY = "retry-7"
REPLAYED = "Idempotent-Replayed"
Body = dict[str, Any] | None


@dataclass(frozen=True)
class Post:
    """A POST that stores or records, another request to the same route, and its status."""

    path: str
    body: Body
    other: tuple[str, Body]
    status: int = 200


Prepare = Callable[[httpx.AsyncClient, Tenancy, Worker], Awaitable[Post]]
QUESTION = {"agent_id": "newton", "input": "Which cache do we use?"}


async def _fact(client: httpx.AsyncClient, tenancy: Tenancy, content: str) -> str:
    memory_id: str = (await write(client, tenancy, fact(content)))["id"]
    return memory_id


async def _built(client: httpx.AsyncClient, tenancy: Tenancy) -> tuple[str, str]:
    """A build that holds a fact: the context's id and the fact's."""
    memory_id = await _fact(client, tenancy, "The cache is Redis 7.")
    response = await client.post("/context/build", json=QUESTION, headers=tenancy.headers)
    assert response.status_code == 200, response.text
    built = response.json()
    assert memory_id in [i["memory_id"] for layer in built["layers"] for i in layer["items"]]
    return built["context_id"], memory_id


async def memory(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> Post:
    path = "/agents/newton/memories"
    return Post(path, fact("The cache is Redis 7."), (path, fact("Deploys run on Tuesdays.")), 201)


async def batch(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> Post:
    path, other = "/agents/newton/memories/batch", {"memories": [fact("c")]}
    return Post(path, {"memories": [fact("a"), fact("b")]}, (path, other), 201)


async def messages(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> Post:
    path = f"{SESSION}/messages"
    said = {"messages": [{"role": "user", "content": "Hello."}]}
    return Post(path, said, (path, {"messages": [{"role": "user", "content": "Bye."}]}), 201)


async def effort(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> Post:
    return Post(EFFORTS, {"title": "Fix the login"}, (EFFORTS, {"title": "Other"}), 201)


async def conclude(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> Post:
    await open_effort(client, tenancy, "Fix the login")
    await say(client, tenancy, ("user", "The gateway rejects refresh tokens."))
    return Post(f"{EFFORTS}/e_1/conclude", None, (f"{EFFORTS}/e_2/conclude", None))


async def effort_expand(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> Post:
    await open_effort(client, tenancy, "Invoice report speed")
    await say(client, tenancy, ("user", "The invoice report takes 40 seconds."))
    assert (await act(client, tenancy, "e_1", "conclude")).status_code == 200
    await worker.drain()
    return Post(f"{EFFORTS}/e_1/expand", None, (f"{EFFORTS}/e_2/expand", None))


async def build(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> Post:
    await _fact(client, tenancy, "The cache is Redis 7.")
    other = {**QUESTION, "input": "When do we deploy?"}
    return Post("/context/build", QUESTION, ("/context/build", other))


async def refresh(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> Post:
    context_id, _ = await _built(client, tenancy)
    body = {"context_id": context_id, "input": "Shall we switch caches?", "decision_point": True}
    return Post("/context/refresh", body, ("/context/refresh", {**body, "input": "Why?"}))


async def context_expand(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> Post:
    first, second = [await _fact(client, tenancy, text) for text in ("Redis 7.", "Tuesdays.")]
    path = "/context/expand"
    return Post(path, {"memory_id": first}, (path, {"memory_id": second}))


async def feedback(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> Post:
    context_id, memory_id = await _built(client, tenancy)
    path = f"/context/{context_id}/feedback"
    return Post(path, {"used_memory_ids": [memory_id]}, (path, {"reply": "Redis 7."}))


async def tool_call(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> Post:
    memory_id = await _fact(client, tenancy, "The cache is Redis 7.")
    path, arguments = "/agents/newton/tools/expand_memory", {"memory_id": memory_id}
    other = {"arguments": {**arguments, "level": "micro"}}
    return Post(path, {"arguments": arguments}, (path, other))


async def retention_run(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> Post:
    await write(client, tenancy, episode("Disk swap", 400))
    path, body = "/agents/newton/retention/run", {"now": NOW.isoformat()}
    return Post(path, body, (path, {**body, "dry_run": True}))


async def restore(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> Post:
    limits = await client.put(
        "/agents/newton/retention/limits",
        json={"max_active_memories": 1},
        headers=tenancy.headers,
    )
    assert limits.status_code == 200, limits.text
    kept = await _fact(client, tenancy, "Backups are kept 30 days.")
    old = fact("The lab printer is on floor two.", occurred_at=days_before(350), confidence=0.3)
    forgotten = (await write(client, tenancy, old))["id"]
    ran = await client.post(
        "/agents/newton/retention/run", json={"now": NOW.isoformat()}, headers=tenancy.headers
    )
    assert [c["memory_id"] for c in ran.json()["changes"] if c["rule"] == "forgotten"] == [
        forgotten
    ]
    return Post(f"/memories/{forgotten}/restore", None, (f"/memories/{kept}/restore", None))


ROUTES: list[Prepare] = [
    memory, batch, messages, effort, conclude, effort_expand, build, refresh,
    context_expand, feedback, tool_call, retention_run, restore,
]  # fmt: skip


@pytest.fixture(params=ROUTES, ids=lambda prepare: prepare.__name__)
async def post(
    request: pytest.FixtureRequest, client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> Post:
    await put_agent(client, tenancy)
    prepared: Post = await request.param(client, tenancy, worker)
    return prepared


async def send(
    client: httpx.AsyncClient, tenancy: Tenancy, path: str, body: Body, key: str | None = KEY
) -> httpx.Response:
    headers = tenancy.headers | ({"Idempotency-Key": key} if key else {})
    if body is None:
        return await client.post(path, headers=headers)
    return await client.post(path, json=body, headers=headers)


async def stored(connection: AsyncConnection) -> dict[str, str]:
    """What the database holds, each table as a digest of its rows."""
    digests = {}
    for table in Base.metadata.sorted_tables:
        digests[table.name] = await connection.scalar(
            text(
                "SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) "
                f"FROM {table.name} t"
            )
        )
    return digests


async def test_a_retry_returns_the_first_response_and_stores_nothing(
    client: httpx.AsyncClient, tenancy: Tenancy, post: Post, connection: AsyncConnection
) -> None:
    before = await stored(connection)
    first = await send(client, tenancy, post.path, post.body)
    assert first.status_code == post.status, first.text
    assert REPLAYED not in first.headers
    after = await stored(connection)
    assert after != before
    second = await send(client, tenancy, post.path, post.body)
    assert (second.status_code, second.content) == (first.status_code, first.content)
    assert second.headers[REPLAYED] == "true"
    assert second.headers["content-type"] == "application/json"
    assert await stored(connection) == after


async def test_the_same_key_for_another_request_is_409(
    client: httpx.AsyncClient, tenancy: Tenancy, post: Post, connection: AsyncConnection
) -> None:
    first = await send(client, tenancy, post.path, post.body)
    assert first.status_code == post.status, first.text
    after = await stored(connection)
    path, body = post.other
    other = await send(client, tenancy, path, body)
    assert other.status_code == 409, other.text
    assert other.headers["content-type"] == "application/problem+json"
    assert "Idempotency-Key was used for a different request" in other.json()["detail"]
    assert await stored(connection) == after


async def test_without_a_key_the_request_runs_and_keeps_no_record(
    client: httpx.AsyncClient, tenancy: Tenancy, post: Post, connection: AsyncConnection
) -> None:
    before = await stored(connection)
    response = await send(client, tenancy, post.path, post.body, key=None)
    assert response.status_code == post.status, response.text
    assert REPLAYED not in response.headers
    assert await stored(connection) != before
    assert await connection.scalar(text("SELECT count(*) FROM idempotency_record")) == 0


async def builds(client: httpx.AsyncClient, tenancy: Tenancy) -> list[str]:
    listed = await client.get("/context", params={"agent_id": "newton"}, headers=tenancy.headers)
    return [b["context_id"] for b in listed.json()["items"]]


async def test_two_builds_with_one_key_store_one_build(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    post = await build(client, tenancy, worker)
    first, second = [await send(client, tenancy, post.path, post.body) for _ in range(2)]
    assert second.json()["context_id"] == first.json()["context_id"]
    assert await builds(client, tenancy) == [first.json()["context_id"]]
    unkeyed = [await send(client, tenancy, post.path, post.body, key=None) for _ in range(2)]
    assert len(set(await builds(client, tenancy))) == 3
    assert all(REPLAYED not in response.headers for response in unkeyed)


async def test_a_retried_feedback_is_answered_again_not_refused(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    context_id, memory_id = await _built(client, tenancy)
    path, body = f"/context/{context_id}/feedback", {"used_memory_ids": [memory_id]}
    first, retried = [await send(client, tenancy, path, body) for _ in range(2)]
    assert (first.status_code, retried.status_code) == (200, 200)
    assert retried.json() == first.json()
    read = await client.get(f"/memories/{memory_id}", headers=tenancy.headers)
    assert read.json()["reference_count"] == 1
    # Without its key, feedback sent again is refused, as before.
    assert (await send(client, tenancy, path, body, key=None)).status_code == 409


async def test_a_key_is_the_tenants_own(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy, worker: Worker
) -> None:
    answers = []
    for who in (tenancy, other_tenancy):
        await put_agent(client, who)
        post = await build(client, who, worker)
        answers.append(await send(client, who, post.path, post.body))
    assert all(REPLAYED not in answer.headers for answer in answers)
    assert answers[0].json()["context_id"] != answers[1].json()["context_id"]
    assert await builds(client, other_tenancy) == [answers[1].json()["context_id"]]


async def test_a_replay_keeps_the_bytes_of_the_first_answer(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    """Metadata keys stay in the order written (a `jsonb` copy would sort them)."""
    await put_agent(client, tenancy)
    body = fact(metadata={"zeta": 1, "alpha": {"y": 2, "b": 3}})
    first, second = [await send(client, tenancy, "/agents/newton/memories", body) for _ in "ab"]
    assert second.headers[REPLAYED] == "true"
    assert second.content == first.content
    assert list(second.json()["metadata"]) == ["zeta", "alpha"]


async def test_spacing_and_key_order_do_not_make_another_request(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    headers = tenancy.headers | {"Idempotency-Key": KEY, "Content-Type": "application/json"}
    path = "/agents/newton/memories"
    compact = b'{"kind":"fact","content":"Redis 7."}'
    spaced = b'{ "content": "Redis 7." ,\n "kind": "fact" }'
    first = await client.post(path, content=compact, headers=headers)
    again = await client.post(path, content=spaced, headers=headers)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.headers[REPLAYED] == "true"
    assert again.content == first.content
