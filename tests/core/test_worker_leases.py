"""A worker's lease on its claim: a job running past it is not taken over, and a claim taken
over writes nothing. Real commits, as in `test_worker_concurrency.py`."""

import asyncio
from collections.abc import Sequence
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.db import Database
from app.core.job_models import ClaimedJob, ProviderGate
from app.core.jobs import JobRepository
from app.core.worker import Worker
from app.runtime import Runtime, build_handlers
from tests.core.test_worker_concurrency import facts_of_a_new_agent, jobs_of
from tests.factories import Tenancy

pytestmark = pytest.mark.committed


class SlowerThanTheLease:
    """An embed handler that takes longer than a lease, then completes its jobs."""

    task = "embed"
    batch_size = 1
    breaker: ProviderGate | None = None

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.runs = 0

    async def run(
        self, sessionmaker: async_sessionmaker[AsyncSession], jobs: Sequence[ClaimedJob]
    ) -> dict[int, str]:
        self.runs += 1
        await asyncio.sleep(self.seconds)
        async with sessionmaker.begin() as session:
            await JobRepository(session).complete(jobs)
        return {}


async def test_a_job_running_longer_than_its_lease_is_not_taken_over(
    committed_client: httpx.AsyncClient,
    committed_tenancy: Tenancy,
    committed_runtime: Runtime,
    database: Database,
) -> None:
    ids = await facts_of_a_new_agent(committed_client, committed_tenancy, "Slow fact {n}.", 1)
    short = committed_runtime.settings.worker.model_copy(
        update={"lease_seconds": 1.0, "concurrency": 1}
    )
    slow = SlowerThanTheLease(2.5)
    running = Worker(database.sessionmaker, [slow], short)
    other = Worker(database.sessionmaker, [SlowerThanTheLease(0)], short)
    stop = asyncio.Event()
    task = asyncio.create_task(running.run(database.engine, stop))
    try:
        for _ in range(100):
            if [state for state, _a, _w in await jobs_of(database, ids)] == ["running"]:
                break
            await asyncio.sleep(0.02)
        for _ in range(50):  # the first worker renews its lease while the second keeps trying
            assert await other.run_once() == 0
            await asyncio.sleep(0.05)
            if {state for state, _a, _w in await jobs_of(database, ids)} == {"done"}:
                break
    finally:
        stop.set()
        await task
    assert slow.runs == 1
    [(state, attempts, locked_by)] = await jobs_of(database, ids)
    assert (state, attempts) == ("done", 1)
    assert locked_by is not None
    assert locked_by.startswith(running.worker_id)


async def test_a_claim_taken_over_writes_nothing(
    committed_client: httpx.AsyncClient,
    committed_tenancy: Tenancy,
    committed_runtime: Runtime,
    database: Database,
) -> None:
    [memory_id] = await facts_of_a_new_agent(
        committed_client, committed_tenancy, "Fenced fact {n}.", 1
    )
    lease = timedelta(seconds=10)
    async with database.sessionmaker.begin() as session:
        [first] = await JobRepository(session).claim("first/1", "embed", 1, lease)
        # Its worker stalled past the lease; another claim takes the job over.
        await session.execute(
            text("UPDATE job SET locked_at = now() - interval '1 hour' WHERE id = :id"),
            {"id": first.job_id},
        )
    async with database.sessionmaker.begin() as session:
        [second] = await JobRepository(session).claim("second/1", "embed", 1, lease)
    assert second.job_id == first.job_id

    handlers = build_handlers(committed_runtime.providers, committed_runtime.settings)
    embed = next(handler for handler in handlers if handler.task == "embed")
    await embed.run(database.sessionmaker, [first])  # the stalled worker comes back

    async def embedded_at() -> object:
        async with database.sessionmaker() as session:
            return await session.scalar(
                text("SELECT embedded_at FROM memory WHERE id = CAST(:id AS uuid)"),
                {"id": memory_id},
            )

    assert await embedded_at() is None  # its vector was not stored
    assert await jobs_of(database, [memory_id]) == [("running", 2, "second/1")]

    await embed.run(database.sessionmaker, [second])
    assert await embedded_at() is not None
    assert await jobs_of(database, [memory_id]) == [("done", 2, "second/1")]
