"""Workers sharing the queue: each job runs once, jobs of crashed workers are taken over, and one
worker keeps several batches in flight.

These tests commit real rows (two workers need two real transactions to race), so they use the
session's engine directly and delete their tenant's rows afterwards.
"""

import asyncio
import uuid
from collections import Counter
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
from tests.factories import Tenancy, fact, put_agent, write

pytestmark = pytest.mark.committed


def make_worker(committed_runtime: Runtime, batch_size: int) -> Worker:
    runtime = committed_runtime
    return Worker(
        runtime.database.sessionmaker,
        build_handlers(runtime.providers, runtime.settings),
        runtime.settings.worker.model_copy(update={"batch_size": batch_size}),
    )


async def facts_of_a_new_agent(
    client: httpx.AsyncClient, tenancy: Tenancy, template: str, count: int
) -> list[str]:
    """Write `count` facts (`template` with `{n}`) for a new agent in one batch; their ids."""
    agent = f"agent-{uuid.uuid4().hex[:8]}"
    await put_agent(client, tenancy, agent)
    response = await client.post(
        f"/agents/{agent}/memories/batch",
        json={"memories": [fact(template.format(n=n)) for n in range(count)]},
        headers=tenancy.headers,
    )
    assert response.status_code == 201, response.text
    return [item["id"] for item in response.json()["memories"]]


async def jobs_of(database: Database, memory_ids: list[str]) -> list[tuple[str, int, str | None]]:
    """(state, attempts, locked_by) of the jobs of some memories."""
    async with database.sessionmaker() as session:
        rows = await session.execute(
            text(
                "SELECT state, attempts, locked_by FROM job "
                "WHERE memory_id = ANY(CAST(:ids AS uuid[])) ORDER BY id"
            ),
            {"ids": memory_ids},
        )
        return [(row.state, row.attempts, row.locked_by) for row in rows]


async def test_two_workers_run_every_job_exactly_once(
    committed_client: httpx.AsyncClient,
    committed_tenancy: Tenancy,
    committed_runtime: Runtime,
    database: Database,
) -> None:
    ids = await facts_of_a_new_agent(
        committed_client, committed_tenancy, "Fact number {n} about the shared queue.", 40
    )
    assert len(ids) == 40

    # Small batches make the two workers claim over and over, side by side.
    first, second = make_worker(committed_runtime, 4), make_worker(committed_runtime, 4)
    taken = await asyncio.gather(first.drain(), second.drain())

    assert sum(taken) == 40
    assert all(count > 0 for count in taken), f"one worker took everything: {taken}"
    jobs = await jobs_of(database, ids)
    assert len(jobs) == 40
    assert {(state, attempts) for state, attempts, _ in jobs} == {("done", 1)}
    claimed_by = Counter(locked_by.partition("/")[0] for _, _, locked_by in jobs if locked_by)
    assert claimed_by == {first.worker_id: taken[0], second.worker_id: taken[1]}
    async with database.sessionmaker() as session:
        unembedded = await session.scalar(
            text(
                "SELECT count(*) FROM memory "
                "WHERE id = ANY(CAST(:ids AS uuid[])) AND embedded_at IS NULL"
            ),
            {"ids": ids},
        )
    assert unembedded == 0


async def test_a_job_left_running_by_a_crashed_worker_is_claimed_again(
    committed_client: httpx.AsyncClient,
    committed_tenancy: Tenancy,
    committed_runtime: Runtime,
    database: Database,
) -> None:
    agent = f"agent-{uuid.uuid4().hex[:8]}"
    await put_agent(committed_client, committed_tenancy, agent)
    memory = await write(committed_client, committed_tenancy, fact(), agent=agent)
    crash = text(
        "UPDATE job SET state = 'running', attempts = 1, locked_by = 'crashed-worker', "
        "locked_at = now() - CAST(:ago AS interval) WHERE memory_id = CAST(:id AS uuid)"
    )
    worker = make_worker(committed_runtime, 32)
    lease = worker.settings.lease_seconds

    # Held by a worker that may still be alive: left alone.
    async with database.sessionmaker.begin() as session:
        await session.execute(crash, {"ago": timedelta(seconds=1), "id": memory["id"]})
    await worker.drain()
    assert await jobs_of(database, [memory["id"]]) == [("running", 1, "crashed-worker")]

    # Not renewed for longer than a lease: the worker crashed; take the job over.
    async with database.sessionmaker.begin() as session:
        await session.execute(crash, {"ago": timedelta(seconds=lease + 1), "id": memory["id"]})
    assert await worker.drain() >= 1
    [(state, attempts, locked_by)] = await jobs_of(database, [memory["id"]])
    assert (state, attempts) == ("done", 2)
    assert locked_by is not None
    assert locked_by.startswith(f"{worker.worker_id}/")
    read = await committed_client.get(
        f"/memories/{memory['id']}", headers=committed_tenancy.headers
    )
    assert read.json()["provenance"]["embedded_at"] is not None


async def test_a_worker_skips_jobs_another_transaction_holds_instead_of_waiting(
    committed_client: httpx.AsyncClient,
    committed_tenancy: Tenancy,
    committed_runtime: Runtime,
    database: Database,
) -> None:
    ids = await facts_of_a_new_agent(
        committed_client, committed_tenancy, "Fact {n} someone else is holding.", 8
    )
    worker = make_worker(committed_runtime, 4)

    # Another worker has claimed the first four and not committed yet: their rows are locked.
    held = database.sessionmaker()
    try:
        await held.begin()
        holder = await JobRepository(held).claim("holder/1", "embed", 4, timedelta(minutes=5))
        assert len(holder) == 4
        # Blocking on those locks would hang here; SKIP LOCKED takes the other four at once.
        taken = await asyncio.wait_for(worker.drain(), timeout=10)
        assert taken == 4
        async with database.sessionmaker() as session:
            done = await session.scalars(
                text(
                    "SELECT CAST(memory_id AS text) FROM job "
                    "WHERE memory_id = ANY(CAST(:ids AS uuid[])) AND state = 'done'"
                ),
                {"ids": ids},
            )
            assert set(done) == set(ids) - {str(job.subject_id) for job in holder}
    finally:
        await held.rollback()  # the holder "crashes" before committing: its claims are undone
        await held.close()

    assert await worker.drain() == 4
    jobs = await jobs_of(database, ids)
    assert {(state, attempts) for state, attempts, _ in jobs} == {("done", 1)}


class HeldUntilTwoInFlight:
    """An embed handler that holds each batch until a second one has started beside it."""

    task = "embed"
    batch_size = 1
    breaker: ProviderGate | None = None

    def __init__(self) -> None:
        self.in_flight = 0
        self.most_in_flight = 0
        self.two_in_flight = asyncio.Event()

    async def run(
        self, sessionmaker: async_sessionmaker[AsyncSession], jobs: Sequence[ClaimedJob]
    ) -> dict[int, str]:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        if self.in_flight == 2:
            self.two_in_flight.set()
        try:
            await asyncio.wait_for(self.two_in_flight.wait(), timeout=5)
        finally:
            self.in_flight -= 1
        async with sessionmaker.begin() as session:
            await JobRepository(session).complete(jobs)
        return {}


async def test_one_worker_runs_batches_side_by_side(
    committed_client: httpx.AsyncClient,
    committed_tenancy: Tenancy,
    committed_runtime: Runtime,
    database: Database,
) -> None:
    ids = await facts_of_a_new_agent(
        committed_client, committed_tenancy, "Fact {n} for two batches at once.", 2
    )
    handler = HeldUntilTwoInFlight()
    settings = committed_runtime.settings.worker.model_copy(
        update={"batch_size": 1, "concurrency": 2}
    )
    worker = Worker(database.sessionmaker, [handler], settings)
    stop = asyncio.Event()
    running = asyncio.create_task(worker.run(database.engine, stop))
    try:
        # One batch at a time would hold the first job until its handler gives up.
        await asyncio.wait_for(handler.two_in_flight.wait(), timeout=10)
        for _ in range(100):
            if {state for state, _a, _w in await jobs_of(database, ids)} == {"done"}:
                break
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await running

    assert handler.most_in_flight == 2
    assert {(state, attempts) for state, attempts, _ in await jobs_of(database, ids)} == {
        ("done", 1)
    }


async def test_a_claim_takes_no_more_than_its_batch_whatever_the_plan(
    committed_client: httpx.AsyncClient,
    committed_tenancy: Tenancy,
    database: Database,
) -> None:
    await facts_of_a_new_agent(
        committed_client, committed_tenancy, "Fact {n} in a queue planned badly.", 12
    )
    async with database.sessionmaker() as session, session.begin():
        # Statistics can lead PostgreSQL to a plan that chooses the jobs again for each job it
        # updates (a nested loop with the choice inside), each time past those it took: here
        # that plan is the only one left.
        for method in ("hashjoin", "mergejoin", "hashagg", "material", "sort"):
            await session.execute(text(f"SET LOCAL enable_{method} = off"))
        claimed = await JobRepository(session).claim("planned/1", "embed", 4, timedelta(minutes=5))
        assert len(claimed) == 4
        await session.rollback()
