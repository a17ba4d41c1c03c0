"""Readiness and the gauges read from the database at scrape time."""

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.db import Database
from app.core.errors import ServiceUnavailable
from app.core.jobs import JobRepository
from app.core.metrics import JOB_QUEUE_DEPTH, MEMORIES_STORED
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


async def refresh_gauges(session: AsyncSession) -> None:
    """Update queue depth and memory counts just before a scrape."""
    depth = await JobRepository(session).depth()
    for task in ("embed", "summarize"):
        for state in ("queued", "running", "failed"):
            JOB_QUEUE_DEPTH.labels(task, state).set(depth.get((task, state), 0))
    counts = await MemoryRepository(session).count_by_kind_and_state()
    MEMORIES_STORED.clear()
    for (kind, state), count in counts.items():
        MEMORIES_STORED.labels(kind, state).set(count)
