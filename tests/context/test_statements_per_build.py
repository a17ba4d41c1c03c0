"""The statements a build sends to PostgreSQL, counted so that more cannot creep in unseen: each
is a round trip, about a millisecond of a build's time. Raise a limit only with a reason."""

import contextlib
from collections.abc import Iterator
from typing import Any

import httpx
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

from app.runtime import Runtime
from tests.factories import Tenancy

# Measured on 2026-11-29. Without a session: the tenant of the key, the agent, its standing
# layers, the input's word counts with its word matches (one statement), the vector search, two
# hops of associative recall and the build's row. With one: its session read with its last
# messages (one statement); older messages only when their stored counts say a selection
# reaches further (`app.context.history.conversation._readable`). An input the process does
# not hold adds the look-up of the vectors another process kept for it
# (`app.sessions.input_vectors`): the builds counted repeat theirs.
WITHOUT_SESSION = 8
WITH_SESSION = 9
WINDOW = {"total": 8_000, "system_reserve": 500, "tools_reserve": 0}


@contextlib.contextmanager
def statements(engine: AsyncEngine) -> Iterator[list[str]]:
    """The statements sent through `engine` meanwhile, in order."""
    sent: list[str] = []

    def record(*args: Any) -> None:
        statement = str(args[2]).strip()
        if not statement.startswith(("SAVEPOINT", "RELEASE SAVEPOINT")):  # the tests' isolation
            sent.append(statement.split("\n", 1)[0][:120])

    event.listen(engine.sync_engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", record)


async def _build(client: httpx.AsyncClient, tenancy: Tenancy, **more: Any) -> None:
    body = {"agent_id": "newton", "input": "Should we use Redis for caching?", **more}
    response = await client.post("/context/build", headers=tenancy.headers, json=body)
    assert response.status_code == 200, response.text


async def test_a_build_sends_a_bounded_number_of_statements(
    client: httpx.AsyncClient, tenancy: Tenancy, runtime: Runtime, newton: dict[str, Any]
) -> None:
    await _build(client, tenancy)  # the first fills the process's caches (censors, counts)
    with statements(runtime.database.engine) as sent:
        await _build(client, tenancy)
    assert len(sent) <= WITHOUT_SESSION, "\n".join(sent)


async def test_a_build_with_a_session_sends_a_bounded_number_of_statements(
    client: httpx.AsyncClient, tenancy: Tenancy, runtime: Runtime, newton: dict[str, Any]
) -> None:
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"Turn {i} about the cache."}
        for i in range(40)
    ]
    response = await client.post(
        "/agents/newton/sessions/chat-1/messages",
        headers=tenancy.headers,
        json={"messages": messages},
    )
    assert response.status_code == 201, response.text
    await _build(client, tenancy, session_id="chat-1", window=WINDOW)
    with statements(runtime.database.engine) as sent:
        await _build(client, tenancy, session_id="chat-1", window=WINDOW)
    assert len(sent) <= WITH_SESSION, "\n".join(sent)
