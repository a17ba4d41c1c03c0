"""The background worker: claims due jobs, runs their handlers, retries failures with backoff."""

import asyncio
import os
import socket
import time
from collections.abc import Sequence
from datetime import timedelta
from typing import Protocol

import structlog
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker

from app.core.config import WorkerSettings
from app.core.jobs import NOTIFY_CHANNEL, ClaimedJob, JobRepository
from app.core.metrics import JOB_DURATION, JOBS_PROCESSED
from app.providers.errors import ProviderError

log = structlog.get_logger(__name__)


class Handler(Protocol):
    """Runs a batch of jobs of one task; raises to have the whole batch retried."""

    task: str
    batch_size: int

    async def run(
        self, sessionmaker: async_sessionmaker[AsyncSession], jobs: Sequence[ClaimedJob]
    ) -> None: ...


class Worker:
    """Processes the job queue; several workers (and replicas) share it safely."""

    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        handlers: Sequence[Handler],
        settings: WorkerSettings,
    ) -> None:
        self.sessionmaker = sessionmaker
        self.handlers = {handler.task: handler for handler in handlers}
        self.settings = settings
        self.worker_id = f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        self._wake = asyncio.Event()
        self._since_analyze = 0  # jobs run since the memory table's statistics were refreshed

    async def run_once(self) -> int:
        """Claim one batch of each task this process handles and run it; returns jobs taken.

        Claims are as large as the handler's batch, so nothing claimed waits behind other work
        long enough to look abandoned to another worker.
        """
        taken = 0
        for task, handler in self.handlers.items():
            async with self.sessionmaker.begin() as session:
                jobs = await JobRepository(session).claim(
                    self.worker_id,
                    task,
                    min(handler.batch_size, self.settings.batch_size),
                    timedelta(seconds=self.settings.stale_after_seconds),
                )
            if jobs:
                await self._run_batch(handler, task, jobs)
                taken += len(jobs)
        self._since_analyze += taken
        return taken

    async def refresh_statistics(self) -> bool:
        """ANALYZE the memory table once enough jobs ran since the last time; True if it did.

        Autovacuum gets there too, but up to a minute later: a search right after a bulk load
        would be planned on statistics that do not know the new rows (or the new agent).
        """
        threshold = self.settings.analyze_after_jobs
        if threshold == 0 or self._since_analyze < threshold:
            return False
        self._since_analyze = 0  # before the ANALYZE: another loop of this worker skips it
        async with self.sessionmaker.begin() as session:
            await session.execute(text("ANALYZE memory"))
        log.info("worker.analyzed", table="memory")
        return True

    async def _run_batch(self, handler: Handler, task: str, jobs: Sequence[ClaimedJob]) -> None:
        started = time.perf_counter()
        structlog.contextvars.bind_contextvars(job_ids=[job.job_id for job in jobs])
        try:
            await handler.run(self.sessionmaker, jobs)
        except (ProviderError, OSError, TimeoutError) as exc:
            await self._retry(task, jobs, f"{type(exc).__name__}: {exc}")
        except Exception as exc:
            # A bug, not an outage: keep it visible on the job and in the log, and go on.
            log.exception("job.crashed", task=task, jobs=len(jobs))
            await self._retry(task, jobs, f"{type(exc).__name__}: {exc}")
        else:
            JOBS_PROCESSED.labels(task, "done").inc(len(jobs))
            log.debug("job.done", task=task, jobs=len(jobs))
        finally:
            JOB_DURATION.labels(task).observe(time.perf_counter() - started)
            structlog.contextvars.unbind_contextvars("job_ids")

    async def _retry(self, task: str, jobs: Sequence[ClaimedJob], error: str) -> None:
        async with self.sessionmaker.begin() as session:
            repository = JobRepository(session)
            for job in jobs:
                state = await repository.retry_or_fail(
                    job,
                    error,
                    base_seconds=self.settings.backoff_base_seconds,
                    max_seconds=self.settings.backoff_max_seconds,
                )
                outcome = "failed" if state == "failed" else "retried"
                JOBS_PROCESSED.labels(task, outcome).inc()
                log.warning(
                    "job.error",
                    task=task,
                    job_id=job.job_id,
                    attempt=job.attempts,
                    outcome=outcome,
                    error=error,
                )

    async def drain(self) -> int:
        """Run every due job until none is left; returns how many ran."""
        total = 0
        while taken := await self.run_once():
            total += taken
        await self.refresh_statistics()
        return total

    async def run(self, engine: AsyncEngine, stop: asyncio.Event) -> None:
        """Work until `stop` is set, woken by NOTIFY on new jobs and by a poll interval.

        `concurrency` loops share the queue: while one writes its batch's results, the next
        batch is already being computed.
        """
        log.info("worker.started", worker_id=self.worker_id, loops=self.settings.concurrency)
        async with engine.connect() as connection:
            listener = await _listen(connection, self._wake)
            try:
                await asyncio.gather(*(self._loop(stop) for _ in range(self.settings.concurrency)))
            finally:
                if listener is not None:
                    await listener()
        log.info("worker.stopped", worker_id=self.worker_id)

    async def _loop(self, stop: asyncio.Event) -> None:
        """Run batches while there are due jobs, then wait for a NOTIFY, `stop` or the poll."""
        while not stop.is_set():
            self._wake.clear()  # before claiming: a NOTIFY from now on wakes us
            try:
                taken = await self.run_once()
            except Exception:
                # The database restarted, a connection broke, or a bug: keep the
                # worker alive, leave the error in the log, and try again after a pause.
                log.exception("worker.loop_error")
                taken = 0
            if taken:
                continue
            try:
                await self.refresh_statistics()
            except Exception:
                log.exception("worker.analyze_error")
            waiters = {
                asyncio.ensure_future(self._wake.wait()),
                asyncio.ensure_future(stop.wait()),
            }
            _, pending = await asyncio.wait(
                waiters,
                timeout=self.settings.poll_interval_seconds,
                return_when=asyncio.FIRST_COMPLETED,
            )
            for waiter in pending:
                waiter.cancel()


class _Unlisten(Protocol):
    async def __call__(self) -> None: ...


async def _listen(connection: AsyncConnection, wake: asyncio.Event) -> _Unlisten | None:
    """LISTEN for new jobs on a dedicated connection; polling alone still works without it."""
    raw = await connection.get_raw_connection()
    driver = raw.driver_connection
    if driver is None:
        return None

    def on_notify(*_: object) -> None:
        wake.set()

    await driver.add_listener(NOTIFY_CHANNEL, on_notify)

    async def unlisten() -> None:
        await driver.remove_listener(NOTIFY_CHANNEL, on_notify)

    return unlisten
