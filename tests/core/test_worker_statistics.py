"""After a bulk of jobs the worker refreshes the memory table's statistics for the planner."""

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.worker import Worker
from tests.factories import Tenancy, fact, put_agent, write


async def test_statistics_follow_a_bulk_load(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    settings: Settings,
    worker: Worker,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    after_three = Worker(
        sessionmaker,
        list(worker.handlers.values()),
        settings.worker.model_copy(update={"analyze_after_jobs": 3}),
    )
    await put_agent(client, tenancy)
    await write(client, tenancy, fact("The ledger service owns payouts."))
    assert await after_three.drain() == 1
    assert not await after_three.refresh_statistics()  # one job is not a bulk load
    for i in range(3):
        await write(client, tenancy, fact(f"Runbook {i}: restart the ledger consumers."))
    assert await after_three.drain() == 3  # and the drain ended with ANALYZE
    async with sessionmaker() as session:
        estimated = await session.scalar(
            text("SELECT reltuples FROM pg_class WHERE relname = 'memory'")
        )
        counted = await session.scalar(text("SELECT count(*) FROM memory"))
    assert estimated == counted  # the planner knows every row, the new ones included
    assert not await after_three.refresh_statistics()  # nothing ran since
