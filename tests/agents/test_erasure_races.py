"""Erasure while other work on the same records runs: a background job that was writing a
session's summaries stores nothing and fails nothing, and a write whose agent is erased before
it is stored answers 409, never 500."""

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.db import Database
from app.core.job_models import ClaimedJob, Task
from app.memories.repository import EmbeddingSpaceRepository
from tests.factories import Tenancy, fact, put_agent
from tests.fake_openai import FakeOpenAI
from tests.openai_stack import Stack, open_stack

pytestmark = pytest.mark.committed

SESSION = "/agents/newton/sessions/chat-1"
TASKS: tuple[Task, ...] = ("summarize_spans", "effort_summaries")


async def _claim(
    sessionmaker: async_sessionmaker[AsyncSession], session_id: uuid.UUID, task: Task
) -> ClaimedJob:
    """The session's queued job of a task, claimed as a worker claims it."""
    claim = f"test:{uuid.uuid4().hex}/1"
    async with sessionmaker.begin() as session:
        row = (
            await session.execute(
                text(
                    "UPDATE job SET state = 'running', attempts = attempts + 1, "
                    "locked_at = clock_timestamp(), locked_by = :claim "
                    "WHERE session_id = :session AND task = :task AND state = 'queued' "
                    "RETURNING id, attempts, failures, max_attempts"
                ),
                {"claim": claim, "session": session_id, "task": task},
            )
        ).one()
    return ClaimedJob(row.id, claim, task, session_id, row.attempts, row.failures, row.max_attempts)


@contextlib.asynccontextmanager
async def _stack_of_fakes(
    settings: Settings, database: Database, fake: FakeOpenAI
) -> AsyncIterator[Stack]:
    """An app and worker on the committed database whose LLM is the fake server's. Its start
    records the fake's embedding model as the stored vectors' own: the suite's is recorded
    again afterwards, for the tests that embed with it."""
    async with database.sessionmaker() as session:
        space = await EmbeddingSpaceRepository(session).get()
        assert space is not None
        recorded = (space.model, space.dimensions)
    try:
        async with open_stack(settings, database, database.sessionmaker, fake) as stack:
            yield stack
    finally:
        async with database.sessionmaker.begin() as session:
            await EmbeddingSpaceRepository(session).record(*recorded)


async def _until(
    condition_met: Callable[[], Awaitable[bool]], what: str, seconds: float = 20.0
) -> None:
    deadline = time.monotonic() + seconds
    while not await condition_met():
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        await asyncio.sleep(0.02)


async def test_summaries_written_while_their_session_is_erased_are_dropped(
    settings: Settings, database: Database, fake: FakeOpenAI, committed_tenancy: Tenancy
) -> None:
    sessionmaker = database.sessionmaker
    async with _stack_of_fakes(settings, database, fake) as stack:
        client, headers = stack.client, committed_tenancy.headers
        await put_agent(client, committed_tenancy)
        opened = await client.post(f"{SESSION}/efforts", json={"title": "Disks"}, headers=headers)
        assert opened.status_code == 201, opened.text
        # A long assistant message: a summary of its own (summarize_spans); the effort's
        # summary once concluded (effort_summaries). Both are written by the LLM.
        long = " ".join(f"Step {n}: check the node logs and its disk." for n in range(80))
        said = [{"role": "user", "content": "Disks?"}, {"role": "assistant", "content": long}]
        appended = await client.post(
            f"{SESSION}/messages", json={"messages": said}, headers=headers
        )
        assert appended.status_code == 201, appended.text
        concluded = await client.post(f"{SESSION}/efforts/e_1/conclude", headers=headers)
        assert concluded.status_code == 200, concluded.text
        async with sessionmaker() as session:
            session_id = await session.scalar(
                text(
                    "SELECT s.id FROM conversation_session s JOIN agent a ON a.id = s.agent_id "
                    "JOIN tenant t ON t.id = a.tenant_id WHERE t.name = :tenant"
                ),
                {"tenant": committed_tenancy.tenant},
            )
        assert session_id is not None
        jobs = {task: await _claim(sessionmaker, session_id, task) for task in TASKS}
        fake.hang()  # the LLM is writing both summaries...
        running = [
            asyncio.create_task(stack.worker.handlers[task].run(sessionmaker, [job]))
            for task, job in jobs.items()
        ]

        async def both_asked() -> bool:
            return len(fake.requests_to("/v1/chat/completions")) >= len(TASKS)

        await _until(both_asked, "both jobs to ask the LLM")
        erased = await client.delete(SESSION, headers=headers)  # ...when the session goes
        assert erased.status_code == 204, erased.text
        fake.recover()

        rejected = await asyncio.gather(*running)

    assert rejected == [{}, {}]  # no exception, nothing failed
    async with sessionmaker() as session:
        for table in ("session_summary", "session_effort", "session_message", "job"):
            left = await session.scalar(
                text(f"SELECT count(*) FROM {table} WHERE session_id = :session"),
                {"session": session_id},
            )
            assert left == 0, table


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/agents/newton/memories", fact()),  # a new row refers to the agent
        ("PUT", "/agents/newton/working-memory", {"current_task": "Disks"}),  # updates it
    ],
)
async def test_a_write_whose_agent_is_erased_before_it_is_stored_is_409(
    committed_client: httpx.AsyncClient,
    committed_tenancy: Tenancy,
    database: Database,
    method: str,
    path: str,
    body: dict[str, Any],
) -> None:
    client, tenancy = committed_client, committed_tenancy
    await put_agent(client, tenancy)
    async with database.engine.connect() as eraser:
        erasing = await eraser.begin()
        await eraser.execute(
            text(
                "DELETE FROM agent WHERE name = 'newton' "
                "AND tenant_id = (SELECT id FROM tenant WHERE name = :tenant)"
            ),
            {"tenant": tenancy.tenant},
        )
        # The write reads the agent (the erasure is not committed yet), then waits for its row.
        write = asyncio.create_task(
            client.request(method, path, json=body, headers=tenancy.headers)
        )

        async def write_waits() -> bool:
            async with database.engine.connect() as watcher:
                waiting = await watcher.scalar(
                    text(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                        "AND datname = current_database()"
                    )
                )
            return bool(waiting)

        await _until(write_waits, "the write to wait for the agent's row")
        await erasing.commit()
        response = await write

    assert response.status_code == 409, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert "was erased while it ran" in response.json()["detail"]
    again = await client.request(method, path, json=body, headers=tenancy.headers)
    assert again.status_code == 404
