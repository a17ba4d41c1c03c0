"""`python -m app reembed`: every vector computed again with the configured model. When the
stored vectors already come from it, nothing is dropped: only the memories still without a
vector are queued (unless forced: then every vector is dropped and computed again). Then the
worker is watched while it computes them, with the count so far."""

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.job_reads import JobReads
from app.core.jobs import JobRepository
from app.maintenance.embeddings import reembed_all, vectors_from
from app.memories.repository import MemoryRepository

Say = Callable[[str], None]


@dataclass(frozen=True)
class Progress:
    """Memories with a vector and in all; embed jobs waiting (queued or running) and failed."""

    embedded: int
    stored: int
    waiting: int
    failed: int


async def progress(session: AsyncSession) -> Progress:
    embedded, stored = await MemoryRepository(session).vector_counts()
    depth = await JobReads(session).depth()
    waiting = depth.get(("embed", "queued"), 0) + depth.get(("embed", "running"), 0)
    return Progress(embedded, stored, waiting, depth.get(("embed", "failed"), 0))


async def reembed(
    sessionmaker: async_sessionmaker[AsyncSession], settings: Settings, say: Say, *, force: bool
) -> bool:
    """Queue what needs a vector from the configured model; False when nothing does."""
    model, dimensions = settings.embeddings.model, settings.embeddings.dimensions
    attempts = settings.worker.max_attempts
    async with sessionmaker.begin() as session:
        if force or not await vectors_from(session, model, dimensions):
            count = await reembed_all(session, model, dimensions, attempts)
            say(f"Queued {count} memories for re-embedding with {model} ({dimensions} dimensions).")
            return True
        missing = await MemoryRepository(session).without_vector()
        if not missing:
            say(
                f"Every stored vector already comes from {model} ({dimensions} dimensions): "
                "nothing to re-embed. `python -m app reembed --force` drops and recomputes "
                "every one anyway."
            )
            return False
        await JobRepository(session).enqueue(missing, "embed", max_attempts=attempts)
    say(
        f"The stored vectors come from {model}; {len(missing)} memories have none yet (an "
        "earlier run stopped, or their jobs failed): queued again. `--force` would drop and "
        "recompute every vector."
    )
    return True


async def watch(
    sessionmaker: async_sessionmaker[AsyncSession],
    say: Say,
    *,
    every_seconds: float = 2.0,
    stalled_seconds: float = 60.0,
) -> Progress:
    """Say how many memories have their vector, as it changes, until no embed job is left to
    run (the sessions' messages are embedded by jobs of their own, not watched); once, if
    nothing moves for `stalled_seconds`, that a worker must run. The last count."""
    shown: tuple[int, int] | None = None
    moved_at, hinted = time.monotonic(), False
    while True:
        async with sessionmaker() as session:
            now = await progress(session)
        if (now.embedded, now.waiting) != shown:
            count = f"{now.embedded:,} of {now.stored:,} memories embedded"
            say(f"  {count}; {now.waiting:,} jobs to run")
            shown, moved_at = (now.embedded, now.waiting), time.monotonic()
        elif not hinted and time.monotonic() - moved_at > stalled_seconds:
            say(
                "  Nothing moved for a while: is a worker running? (`make run`, or "
                "`python -m app worker`.) Ctrl-C stops watching; the jobs stay queued."
            )
            hinted = True
        if not now.waiting:
            return now
        await asyncio.sleep(every_seconds)
