"""The background worker: claims due jobs under a lease, runs their handlers, retries what can
still succeed and fails only what never will."""

import asyncio
import contextlib
import os
import secrets
import socket
import time
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Protocol

import structlog
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.core import processes
from app.core.config import WorkerSettings
from app.core.db import database_unavailable
from app.core.jobs import ClaimedJob, JobRepository
from app.core.metrics import JOB_DURATION, JOBS_PROCESSED
from app.core.notify import listen_for_jobs
from app.providers.breaker import CircuitBreaker
from app.providers.errors import ProviderUnavailable

log = structlog.get_logger(__name__)


class Handler(Protocol):
    """Runs a batch of jobs of one task and completes them; raises to have the batch retried."""

    task: str
    batch_size: int
    # The breaker of the provider the task calls: no claims while it pauses calls.
    breaker: CircuitBreaker | None

    async def run(
        self, sessionmaker: async_sessionmaker[AsyncSession], jobs: Sequence[ClaimedJob]
    ) -> Mapping[int, str]:
        """Returns the jobs the provider rejects for good (job id → why); the rest are done."""
        ...


def worker_identity() -> str:
    """host:pid:process start (ms):token — enough to tell, on this host, whether it is gone."""
    started = processes.started_at(os.getpid()) or 0.0
    return f"{socket.gethostname()}:{os.getpid()}:{int(started * 1000)}:{secrets.token_hex(4)}"


def is_gone(owner: str) -> bool:
    """Whether the worker process of an identity (of this host) no longer runs."""
    try:
        _host, pid, started, _token = owner.rsplit(":", 3)
        running_since = processes.started_at(int(pid))
        return running_since is None or int(running_since * 1000) != int(started)
    except ValueError:
        return False  # not an identity of ours: its lease decides


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
        self.worker_id = worker_identity()
        self._wake = asyncio.Event()
        self._held: set[int] = set()  # jobs claimed and not settled: their leases are renewed
        self._since_analyze = 0  # jobs run since the memory table's statistics were refreshed

    async def run_once(self) -> int:
        """Claim one batch of each task whose provider answers, and run it; returns jobs taken.

        Claims are as large as the handler's batch, so nothing claimed waits behind other work.
        """
        taken = 0
        for task, handler in self.handlers.items():
            if not await self._provider_ready(task, handler):
                continue
            # After a pause, the provider is tried with the oldest jobs, whatever their backoff.
            trial = handler.breaker is not None and handler.breaker.state == "open"
            async with self.sessionmaker.begin() as session:
                jobs = await JobRepository(session).claim(
                    self.worker_id,
                    task,
                    min(handler.batch_size, self.settings.batch_size),
                    timedelta(seconds=self.settings.lease_seconds),
                    waiting=trial,
                )
            if jobs:
                ids = {job.job_id for job in jobs}
                self._held |= ids
                try:
                    await self._run_batch(handler, task, jobs)
                finally:
                    self._held -= ids
                taken += len(jobs)
        self._since_analyze += taken
        return taken

    async def _provider_ready(self, task: str, handler: Handler) -> bool:
        """False while the task's provider is paused; when it is back, its waiting jobs are
        made due at once, so the backlog drains oldest first."""
        breaker = handler.breaker
        if breaker is None:
            return True
        if breaker.take_recovery():
            async with self.sessionmaker.begin() as session:
                hurried = await JobRepository(session).hurry(task)
            log.info("worker.provider_back", task=task, jobs_due_now=hurried)
        return breaker.ready()

    async def _run_batch(self, handler: Handler, task: str, jobs: Sequence[ClaimedJob]) -> None:
        started = time.perf_counter()
        structlog.contextvars.bind_contextvars(job_ids=[job.job_id for job in jobs])
        try:
            rejected = await handler.run(self.sessionmaker, jobs)
        except (ProviderUnavailable, OSError, TimeoutError) as exc:
            await self._retry(task, jobs, _describe(exc), transient=True)
        except Exception as exc:
            transient = database_unavailable(exc)
            if not transient:  # a bug, not an outage: keep it visible on the job and in the log
                log.exception("job.crashed", task=task, jobs=len(jobs))
            await self._retry(task, jobs, _describe(exc), transient=transient)
        else:
            JOBS_PROCESSED.labels(task, "done").inc(len(jobs) - len(rejected))
            if rejected:
                await self._fail(task, [job for job in jobs if job.job_id in rejected], rejected)
        finally:
            JOB_DURATION.labels(task).observe(time.perf_counter() - started)
            structlog.contextvars.unbind_contextvars("job_ids")

    async def _retry(
        self, task: str, jobs: Sequence[ClaimedJob], error: str, *, transient: bool
    ) -> None:
        """Queue the jobs again after a backoff; a job failing for a reason of its own fails
        for good after `max_attempts`, a provider or database outage never makes it fail."""
        failed = 0
        async with self.sessionmaker.begin() as session:
            repository = JobRepository(session)
            for job in jobs:
                if not transient and job.attempts >= job.max_attempts:
                    await repository.fail(job, error)
                    failed += 1
                else:
                    await repository.retry_later(job, error, self._backoff(job.attempts))
        JOBS_PROCESSED.labels(task, "failed").inc(failed)
        JOBS_PROCESSED.labels(task, "retried").inc(len(jobs) - failed)
        log.warning(
            "job.retry",
            task=task,
            jobs=len(jobs),
            failed=failed,
            attempt=max(job.attempts for job in jobs),
            transient=transient,
            error=error,
        )

    async def _fail(
        self, task: str, jobs: Sequence[ClaimedJob], reasons: Mapping[int, str]
    ) -> None:
        async with self.sessionmaker.begin() as session:
            repository = JobRepository(session)
            for job in jobs:
                await repository.fail(job, reasons[job.job_id])
        JOBS_PROCESSED.labels(task, "failed").inc(len(jobs))
        log.warning("job.rejected", task=task, job_ids=[job.job_id for job in jobs])

    def _backoff(self, attempts: int) -> float:
        exponent = min(max(attempts - 1, 0), 32)
        return float(
            min(self.settings.backoff_base_seconds * 2**exponent, self.settings.backoff_max_seconds)
        )

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

    async def drain(self) -> int:
        """Run every due job until none is left; returns how many ran."""
        total = 0
        while taken := await self.run_once():
            total += taken
        await self.refresh_statistics()
        return total

    async def resume(self) -> None:
        """At start: queue again the jobs that dead worker processes of this host held, and
        make every waiting job due now (the provider, or its settings, may have changed)."""
        async with self.sessionmaker.begin() as session:
            repository = JobRepository(session)
            gone = [o for o in await repository.owners_on(socket.gethostname()) if is_gone(o)]
            reclaimed = await repository.release_from(gone) if gone else 0
            hurried = [await repository.hurry(task) for task in self.handlers]
        if reclaimed:
            log.info("worker.reclaimed", jobs=reclaimed, dead_workers=gone)
        if any(hurried):
            log.info("worker.retrying_now", jobs=sum(hurried))

    async def run(self, engine: AsyncEngine, stop: asyncio.Event) -> None:
        """Work until `stop` is set, woken by NOTIFY on new jobs and by a poll interval.

        `concurrency` loops share the queue: while one writes its batch's results, the next
        batch is already being computed. The leases of running jobs are renewed meanwhile.
        """
        log.info("worker.started", worker_id=self.worker_id, loops=self.settings.concurrency)
        try:
            await self.resume()
        except Exception:
            log.exception("worker.resume_error")  # leases and backoffs bring the jobs back later
        await asyncio.gather(
            *(self._loop(stop) for _ in range(self.settings.concurrency)),
            self._renew_leases(stop),
            listen_for_jobs(engine, self._wake, stop, self.settings.poll_interval_seconds),
        )
        log.info("worker.stopped", worker_id=self.worker_id)

    async def _loop(self, stop: asyncio.Event) -> None:
        """Run batches while there are due jobs, then wait for a NOTIFY, `stop` or the poll."""
        while not stop.is_set():
            self._wake.clear()  # before claiming: a NOTIFY from now on wakes us
            try:
                taken = await self.run_once()
            except Exception as exc:
                # The database is away, or a bug: keep the worker alive, leave the error in
                # the log, and try again after a pause.
                if database_unavailable(exc):
                    log.warning("worker.database_unavailable", error=_describe(exc)[:500])
                else:
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

    async def _renew_leases(self, stop: asyncio.Event) -> None:
        """Renew the leases of the jobs being run, every third of a lease."""
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.settings.lease_seconds / 3)
            if not self._held:
                continue
            try:
                async with self.sessionmaker.begin() as session:
                    await JobRepository(session).renew(self.worker_id, sorted(self._held))
            except Exception as exc:
                # Another worker takes the jobs over once the lease runs out; our results
                # are then not written over theirs.
                log.warning("worker.lease_not_renewed", error=_describe(exc))


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
