"""The background worker: claims due jobs under a lease, runs their handlers, retries what can
still succeed and fails only what never will."""

import asyncio
import contextlib
import itertools
import secrets
import time
from collections.abc import Collection, Mapping, Sequence
from datetime import timedelta

import structlog
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.core import processes
from app.core.config import WorkerSettings
from app.core.db import database_unavailable
from app.core.job_models import ClaimedJob, Handler, Yielding
from app.core.jobs import JobRepository
from app.core.metrics import JOB_DURATION, JOB_OUTCOMES, JOBS_PROCESSED
from app.core.notify import listen_for_jobs
from app.providers.errors import ProviderUnavailable

log = structlog.get_logger(__name__)


def claim_is_gone(claim: str) -> bool:
    """Whether the worker process that made a claim (`identity:token/n`) has ended."""
    worker_id = claim.partition("/")[0]
    return processes.is_gone(worker_id.rpartition(":")[0])


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
        self.worker_id = f"{processes.identity()}:{secrets.token_hex(4)}"
        self._claims = itertools.count(1)
        self._wake = asyncio.Event()
        self._held: dict[str, list[int]] = {}  # claims not settled: their leases are renewed
        self._since_analyze = 0  # jobs run since the memory table's statistics were refreshed

    async def run_once(self, tasks: Collection[str] | None = None) -> int:
        """Claim one batch of each task (of `tasks`, if given) whose provider answers, and run
        it; returns jobs taken.

        Claims are as large as the handler's batch, so nothing claimed waits behind other work.
        """
        taken = 0
        full: set[str] = set()  # the tasks of which this pass took a whole batch
        for task, handler in self.handlers.items():
            if tasks is not None and task not in tasks:
                continue
            if isinstance(handler, Yielding) and handler.yields_to in full:
                continue  # more of the task it yields to is likely waiting: that first
            if not await self._provider_ready(task, handler):
                continue
            # After a pause, the provider is tried with the oldest jobs, whatever their backoff.
            trial = handler.breaker is not None and handler.breaker.state == "open"
            claim = f"{self.worker_id}/{next(self._claims)}"
            async with self.sessionmaker.begin() as session:
                jobs = await JobRepository(session).claim(
                    claim,
                    task,
                    min(handler.batch_size, self.settings.batch_size),
                    timedelta(seconds=self.settings.lease_seconds),
                    include_backing_off=trial,
                )
            if len(jobs) == min(handler.batch_size, self.settings.batch_size):
                full.add(task)
            if jobs:
                self._held[claim] = [job.job_id for job in jobs]
                try:
                    await self._run_batch(handler, task, jobs)
                finally:
                    del self._held[claim]
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
                due = await JobRepository(session).make_due_now(task)
            log.info("worker.provider_back", task=task, jobs_due_now=due)
        return breaker.ready()

    async def _run_batch(self, handler: Handler, task: str, jobs: Sequence[ClaimedJob]) -> None:
        started = time.perf_counter()
        structlog.contextvars.bind_contextvars(job_ids=[job.job_id for job in jobs])
        try:
            rejected = await handler.run(self.sessionmaker, jobs)
        except ProviderUnavailable as exc:
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
        """Queue the jobs again after a backoff. A job failing for a reason of its own fails
        for good after `max_attempts` such failures; an outage never counts against it."""
        failed = 0
        async with self.sessionmaker.begin() as session:
            repository = JobRepository(session)
            for job in jobs:
                if not transient and job.failures + 1 >= job.max_attempts:
                    await repository.fail(job, error)
                    failed += 1
                else:
                    delay = self._backoff(job.attempts)
                    await repository.retry_later(job, error, delay, own_fault=not transient)
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
            holders = await repository.holders_on(f"{processes.this_host()}:")
            gone = [claim for claim in holders if claim_is_gone(claim)]
            reclaimed = await repository.release_from(gone) if gone else 0
            due = [await repository.make_due_now(task) for task in self.handlers]
        if reclaimed:
            log.info("worker.reclaimed", jobs=reclaimed, dead_claims=gone)
        if any(due):
            log.info("worker.retrying_now", jobs=sum(due))

    async def run(self, engine: AsyncEngine, stop: asyncio.Event) -> None:
        """Work until `stop` is set, woken by NOTIFY on new jobs and by a poll interval.

        `concurrency` loops share the queue: while one writes its batch's results, the next
        batch is already being computed. The leases of running jobs are renewed meanwhile.
        """
        log.info("worker.started", worker_id=self.worker_id, loops=self.settings.concurrency)
        for task in self.handlers:
            for outcome in JOB_OUTCOMES:
                # Shown at 0 from the start: an alert's increase() sees the first failure.
                JOBS_PROCESSED.labels(task, outcome)
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
        polled = False  # woken by the poll's timer rather than a NOTIFY (or the start)
        while not stop.is_set():
            self._wake.clear()  # before claiming: a NOTIFY from now on wakes us
            try:
                # After a poll, one read says which tasks to claim; otherwise every task.
                taken = await self.run_once(await self._polled_tasks() if polled else None)
            except Exception as exc:
                # The database is away, or a bug: keep the worker alive, leave the error in
                # the log, and try again after a pause.
                if database_unavailable(exc):
                    log.warning("worker.database_unavailable", error=_describe(exc)[:500])
                else:
                    log.exception("worker.loop_error")
                taken = 0
            polled = False
            if taken:
                continue
            try:
                await self.refresh_statistics()
            except Exception:
                log.exception("worker.analyze_error")
            polled = not await self._woken(stop)

    async def _polled_tasks(self) -> set[str]:
        """The tasks a poll claims: those with a job to take (one read for all), and those whose
        provider is paused, on trial or just back (their breaker decides)."""
        async with self.sessionmaker() as session:
            due = await JobRepository(session).due_tasks(
                self.handlers, timedelta(seconds=self.settings.lease_seconds)
            )
        return due | {
            task
            for task, handler in self.handlers.items()
            if handler.breaker and (handler.breaker.state != "closed" or handler.breaker.recovered)
        }

    async def _woken(self, stop: asyncio.Event) -> bool:
        """Wait for a NOTIFY or `stop` (True), or the poll interval's end (False)."""
        waiters = {
            asyncio.ensure_future(self._wake.wait()),
            asyncio.ensure_future(stop.wait()),
        }
        done, pending = await asyncio.wait(
            waiters,
            timeout=self.settings.poll_interval_seconds,
            return_when=asyncio.FIRST_COMPLETED,
        )
        for waiter in pending:
            waiter.cancel()
        return bool(done)

    async def _renew_leases(self, stop: asyncio.Event) -> None:
        """Renew the leases of the jobs being run, every third of a lease."""
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.settings.lease_seconds / 3)
            held = dict(self._held)
            if not held:
                continue
            try:
                async with self.sessionmaker.begin() as session:
                    repository = JobRepository(session)
                    for claim, job_ids in held.items():
                        await repository.renew(claim, job_ids)
            except Exception as exc:
                # Another worker takes the jobs over once the lease runs out; results of a
                # claim it took over are not written.
                if not database_unavailable(exc):
                    raise
                log.warning("worker.lease_not_renewed", error=_describe(exc)[:500])


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
