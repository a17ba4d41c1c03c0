"""Runs in the background: one waits per agent, the schedule queues one per interval, and
runs at once (two workers, two requests) apply each change once."""

import asyncio
import uuid
from datetime import UTC, datetime

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.db import Database
from app.core.worker import Worker
from app.providers.container import Providers
from app.retention.repository import RetentionJobs
from app.retention.tasks import RunRetention, queue_due_runs, schedule
from tests.factories import Tenancy, fact, put_agent
from tests.retention.writes import days_before, episode, run, states, write_all


async def agent_id(sessionmaker: async_sessionmaker[AsyncSession], tenancy: Tenancy) -> uuid.UUID:
    async with sessionmaker() as session:
        found = await session.scalar(
            text(
                "SELECT a.id FROM agent a JOIN tenant t ON t.id = a.tenant_id "
                "WHERE t.name = :tenant AND a.name = 'newton'"
            ),
            {"tenant": tenancy.tenant},
        )
    assert isinstance(found, uuid.UUID)
    return found


async def jobs_of(
    sessionmaker: async_sessionmaker[AsyncSession], agent: uuid.UUID
) -> list[tuple[str, str]]:
    async with sessionmaker() as session:
        rows = await session.execute(
            text("SELECT task, state FROM job WHERE agent_id = :agent ORDER BY id"),
            {"agent": agent},
        )
        return [(row[0], row[1]) for row in rows]


async def test_one_run_waits_per_agent_and_the_schedule_queues_one_per_interval(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    sessionmaker: async_sessionmaker[AsyncSession],
    settings: Settings,
    worker: Worker,
) -> None:
    await put_agent(client, tenancy)
    now = datetime.now(UTC)
    ids = await write_all(client, tenancy, {"year": episode("Disk swap", 400, now)})
    agent = await agent_id(sessionmaker, tenancy)
    for _ in range(2):
        async with sessionmaker.begin() as session:
            await RetentionJobs(session).enqueue([agent], max_attempts=3)
    assert await jobs_of(sessionmaker, agent) == [("retention", "queued")]
    await worker.drain()
    assert await jobs_of(sessionmaker, agent) == [("retention", "done")]
    assert await states(client, tenancy, ids) == {"year": "archived"}
    # Run this interval already: the schedule queues none until the next.
    await queue_due_runs(sessionmaker, settings)
    assert await jobs_of(sessionmaker, agent) == [("retention", "done")]
    hourly = settings.model_copy(
        update={"retention": settings.retention.model_copy(update={"interval_seconds": 1e-3})}
    )
    await asyncio.sleep(0.01)
    await queue_due_runs(sessionmaker, hourly)
    assert await jobs_of(sessionmaker, agent) == [("retention", "done"), ("retention", "queued")]
    await worker.drain()  # the queue keeps the agent's latest run only
    assert await jobs_of(sessionmaker, agent) == [("retention", "done")]


@pytest.mark.committed
async def test_concurrent_runs_apply_each_change_once(
    committed_client: httpx.AsyncClient,
    committed_tenancy: Tenancy,
    database: Database,
    providers: Providers,
    settings: Settings,
) -> None:
    client, tenancy = committed_client, committed_tenancy
    await put_agent(client, tenancy)
    now = datetime.now(UTC)
    ids = await write_all(
        client,
        tenancy,
        {
            "month": episode("Vacuum incident", 40, now),
            "quarter": episode("Replica outage", 100, now),
            "stale": fact("The staging VPN uses port 1194.", occurred_at=days_before(400, now)),
        },
    )
    agent = await agent_id(database.sessionmaker, tenancy)
    async with database.sessionmaker.begin() as session:
        await RetentionJobs(session).enqueue([agent], max_attempts=3)
    workers = [
        Worker(database.sessionmaker, [RunRetention(providers, settings)], settings.worker)
        for _ in range(2)
    ]
    requests = [run(client, tenancy) for _ in range(2)]
    results = await asyncio.gather(*requests, *(w.drain() for w in workers))
    by_requests = [c["memory_id"] for result in results[:2] for c in result["changes"]]
    listed = await client.get("/agents/newton/retention/changes", headers=tenancy.headers)
    recorded = [c["memory_id"] for c in listed.json()["items"]]
    assert sorted(recorded) == sorted(ids.values())  # each memory changed once
    assert set(by_requests) <= set(recorded)
    assert len(by_requests) == len(set(by_requests))
    assert await states(client, tenancy, ids) == {
        "month": "summarized",
        "quarter": "archived",
        "stale": "new",
    }


@pytest.mark.committed
async def test_the_worker_schedule_queues_a_run_at_start_and_stops_when_asked(
    committed_client: httpx.AsyncClient,
    committed_tenancy: Tenancy,
    database: Database,
    settings: Settings,
) -> None:
    await put_agent(committed_client, committed_tenancy)
    await write_all(committed_client, committed_tenancy, {"year": episode("Disk swap", 400)})
    agent = await agent_id(database.sessionmaker, committed_tenancy)
    stop = asyncio.Event()
    scheduler = asyncio.create_task(schedule(database.sessionmaker, settings, stop))
    for _ in range(500):  # the first round goes at once
        if await jobs_of(database.sessionmaker, agent):
            break
        await asyncio.sleep(0.02)
    stop.set()
    await asyncio.wait_for(scheduler, 5)  # it does not wait out its interval
    assert await jobs_of(database.sessionmaker, agent) == [("retention", "queued")]
