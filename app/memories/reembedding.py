"""`python -m app reembed`: every vector computed again with the configured model. Refused when
the stored vectors already come from it (unless forced: it drops them all), then watched while
the worker computes them, with the count so far."""

import asyncio
import time
from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.memories.maintenance import reembed_all, vectors_from
from app.memories.repository import MemoryRepository

Say = Callable[[str], None]


async def reembed(
    sessionmaker: async_sessionmaker[AsyncSession], settings: Settings, say: Say, *, force: bool
) -> bool:
    """Queue every memory and session for embedding with the configured model; False (and
    nothing done) when the vectors already come from it and `force` is not given."""
    model, dimensions = settings.embeddings.model, settings.embeddings.dimensions
    async with sessionmaker.begin() as session:
        if not force and await vectors_from(session, model, dimensions):
            say(
                f"The stored vectors already come from {model} ({dimensions} dimensions): "
                "nothing to re-embed. `python -m app reembed --force` drops and recomputes "
                "every one anyway."
            )
            return False
        count = await reembed_all(session, model, dimensions, settings.worker.max_attempts)
    say(f"Queued {count} memories for re-embedding with {model} ({dimensions} dimensions).")
    return True


async def watch(
    sessionmaker: async_sessionmaker[AsyncSession],
    say: Say,
    *,
    every_seconds: float = 2.0,
    stalled_seconds: float = 60.0,
) -> None:
    """Say how many memories have their vector, as it changes, until no embed job is left to
    run; once, if nothing moves for `stalled_seconds`, that a worker must run."""
    shown: tuple[int, int] | None = None
    moved_at, hinted = time.monotonic(), False
    while True:
        async with sessionmaker() as session:
            embedded, stored, waiting = await MemoryRepository(session).embedding_progress()
        if (embedded, waiting) != shown:
            say(f"  {embedded:,} of {stored:,} memories embedded; {waiting:,} jobs to run")
            shown, moved_at = (embedded, waiting), time.monotonic()
        elif not hinted and time.monotonic() - moved_at > stalled_seconds:
            say(
                "  Nothing moved for a while: is a worker running? (`make run`, or "
                "`python -m app worker`.) Ctrl-C stops watching; the jobs stay queued."
            )
            hinted = True
        if not waiting:
            return
        await asyncio.sleep(every_seconds)
