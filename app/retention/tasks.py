"""Retention in the background: the job that runs it for one agent, and the schedule that
queues every agent's run each interval."""

import asyncio
import contextlib
from collections.abc import Mapping, Sequence

import structlog
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.db import database_unavailable
from app.core.job_models import ClaimedJob, ProviderGate
from app.core.jobs import JobRepository
from app.core.time import utcnow
from app.providers.container import Providers
from app.retention.repository import TASK, RetentionJobs
from app.retention.service import run_for_agent

log = structlog.get_logger(__name__)


class RunRetention:
    """Runs retention for the agent a job names, as of the time it runs."""

    task = TASK
    batch_size = 1
    breaker: ProviderGate | None = None  # no provider is called

    def __init__(self, providers: Providers, settings: Settings) -> None:
        self.providers = providers
        self.settings = settings

    async def run(
        self, sessionmaker: async_sessionmaker[AsyncSession], jobs: Sequence[ClaimedJob]
    ) -> Mapping[int, str]:
        """Each run and its job's completion commit together; a claim taken over runs none."""
        for job in jobs:
            async with sessionmaker.begin() as session:
                if not await JobRepository(session).complete([job]):
                    continue
                await RetentionJobs(session).prune(job.subject_id, job.job_id)
                plan = await run_for_agent(
                    session,
                    self.providers,
                    self.settings.retention,
                    job.subject_id,
                    utcnow(),
                    dry_run=False,
                )
            log.info("retention.ran", agent_id=str(job.subject_id), changes=len(plan.changes))
        return {}


async def queue_due_runs(sessionmaker: async_sessionmaker[AsyncSession], settings: Settings) -> int:
    """Queue a run for every agent with memories that has had none this interval; how many."""
    async with sessionmaker.begin() as session:
        jobs = RetentionJobs(session)
        due = await jobs.due(settings.retention.interval_seconds)
        return await jobs.enqueue(due, max_attempts=settings.worker.max_attempts)


async def schedule(
    sessionmaker: async_sessionmaker[AsyncSession], settings: Settings, stop: asyncio.Event
) -> None:
    """Queue the due runs at start and then every interval, until `stop`. Several workers may
    do this at once: at most one run waits per agent, and a race between two of them adds at
    most a run that changes nothing."""
    while not stop.is_set():
        try:
            queued = await queue_due_runs(sessionmaker, settings)
        except Exception as exc:
            # The database is away, or a bug: the log says which; the next interval tries again.
            if not database_unavailable(exc):
                log.exception("retention.schedule_error")
            else:
                log.warning("retention.database_unavailable", error=str(exc)[:500])
        else:
            if queued:
                log.info("retention.queued", agents=queued)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), settings.retention.interval_seconds)
