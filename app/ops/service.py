"""Readiness and the gauges read from the database at scrape time."""

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import shared_metrics
from app.core.db import Database, database_unavailable
from app.core.errors import ServiceUnavailable
from app.core.job_models import TASKS
from app.core.job_reads import JobReads
from app.core.metrics import DATABASE_UP, JOB_QUEUE_DEPTH, JOB_QUEUE_LAG, MEMORIES_STORED
from app.core.migrations import is_at_head
from app.memories.repository import MemoryRepository
from app.ops.schemas import Readiness


async def check_readiness(database: Database, head: str | None) -> Readiness:
    """Ready when the database answers and its schema is at the newest migration."""
    try:
        at_head = await is_at_head(database.engine, head)
    except (SQLAlchemyError, OSError) as exc:
        raise ServiceUnavailable(f"The database is not reachable: {exc}") from exc
    if not at_head:
        raise ServiceUnavailable("The database schema is behind; run `make migrate`.")
    return Readiness()


async def refresh_gauges(database: Database) -> None:
    """Update queue depth and memory counts just before a scrape; while the database cannot
    be reached, `ce_database_up` says so and the other gauges keep their last values."""
    try:
        async with database.sessionmaker.begin() as session:
            await _read_gauges(session)
    except (SQLAlchemyError, OSError) as exc:
        if not database_unavailable(exc):
            raise
        DATABASE_UP.set(0)
    else:
        DATABASE_UP.set(1)


async def _read_gauges(session: AsyncSession) -> None:
    jobs = JobReads(session)
    depth, lag = await jobs.depth(), await jobs.lag()
    for task in TASKS:
        for state in ("queued", "running", "failed"):
            JOB_QUEUE_DEPTH.labels(task, state).set(depth.get((task, state), 0))
        JOB_QUEUE_LAG.labels(task).set(lag.get(task, 0.0))
    counts = await MemoryRepository(session).count_by_kind_and_state()
    if shared_metrics.is_shared():  # a (kind, state) with no memory left shows 0
        for kind, state in shared_metrics.series_labels("ce_memories") - counts.keys():
            MEMORIES_STORED.labels(kind, state).set(0)
    else:  # it leaves the output
        MEMORIES_STORED.clear()
    for (kind, state), count in counts.items():
        MEMORIES_STORED.labels(kind, state).set(count)
