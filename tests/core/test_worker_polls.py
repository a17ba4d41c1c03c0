"""The worker's poll: what it finds without a NOTIFY (a lease that ran out, a backoff that ended),
at the cost of one read when there is nothing to do, not a claim per task."""

import asyncio
import contextlib
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import httpx
from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker

from app.core.job_models import TASKS
from app.core.jobs import JobRepository
from app.core.worker import Worker
from app.runtime import Runtime, build_handlers
from tests.factories import Tenancy, fact, put_agent, write


@contextlib.contextmanager
def statements(engine: AsyncEngine) -> Iterator[list[str]]:
    sent: list[str] = []

    def record(*args: Any) -> None:
        sent.append(str(args[2]))

    event.listen(engine.sync_engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", record)


async def _only_job(
    client: httpx.AsyncClient, tenancy: Tenancy, connection: AsyncConnection
) -> str:
    """A memory whose embedding job is the only job the test's transaction sees; its id."""
    await put_agent(client, tenancy, "polled")
    memory_id = str((await write(client, tenancy, fact(), agent="polled"))["id"])
    await connection.execute(
        text("DELETE FROM job WHERE memory_id <> CAST(:id AS uuid)"), {"id": memory_id}
    )
    return memory_id


async def test_due_tasks_are_those_with_a_job_to_take_now(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    connection: AsyncConnection,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await _only_job(client, tenancy, connection)
    lease = timedelta(seconds=10)

    async def due() -> set[str]:
        async with sessionmaker() as session:
            return await JobRepository(session).due_tasks(TASKS, lease)

    async def job(change: str) -> None:
        await connection.execute(text(f"UPDATE job SET {change}"))

    assert await due() == {"embed"}  # queued and due
    await job("run_after = clock_timestamp() + interval '1 minute'")
    assert await due() == set()  # backing off
    await job("state = 'running', locked_by = 'elsewhere:1:1:ab/1', locked_at = clock_timestamp()")
    assert await due() == set()  # held under a live lease
    await job("locked_at = clock_timestamp() - interval '11 seconds'")
    assert await due() == {"embed"}  # its lease ran out: its worker is gone
    await job("state = 'done'")
    assert await due() == set()


async def test_a_polling_worker_takes_a_job_when_it_falls_due_and_claims_nothing_idle(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    runtime: Runtime,
    connection: AsyncConnection,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    memory_id = await _only_job(client, tenancy, connection)
    settings = runtime.settings.worker.model_copy(
        update={"concurrency": 1, "poll_interval_seconds": 0.05, "lease_seconds": 1.0}
    )
    handlers = build_handlers(runtime.providers, runtime.settings)
    # Held by a worker of another host whose lease runs out in half a second; the test's
    # transaction is never committed, so no NOTIFY wakes the worker: only its poll finds it.
    await connection.execute(
        text(
            "UPDATE job SET state = 'running', attempts = 1, locked_by = 'elsewhere:1:1:ab/1', "
            "locked_at = clock_timestamp() - interval '0.5 seconds'"
        )
    )
    worker = Worker(sessionmaker, handlers, settings)
    stop = asyncio.Event()
    running = asyncio.create_task(worker.run(runtime.database.engine, stop))
    state = None
    for _ in range(100):
        await asyncio.sleep(0.05)
        state = await connection.scalar(
            text("SELECT state FROM job WHERE memory_id = CAST(:id AS uuid)"), {"id": memory_id}
        )
        if state == "done":
            break
    assert state == "done"  # the poll found it: no NOTIFY ever came
    with statements(runtime.database.engine) as sent:
        await asyncio.sleep(0.4)  # the queue is idle now: polls every 0.05 s
    stop.set()
    await running
    # Once the batch that took the job is over (its loop may claim each task once more before
    # it goes idle), each idle poll is one read of the tasks with a job to take, and no claim
    # (it used to claim each task in turn, a write transaction each).
    polls = [i for i, statement in enumerate(sent) if "task_name" in statement]
    assert polls
    assert not [s for s in sent[polls[0] :] if "SKIP LOCKED" in s]
