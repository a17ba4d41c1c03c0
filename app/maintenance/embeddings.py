"""The stored vectors (memories' and messages'): the check of their embedding model at start,
re-embedding every one, and the rescoring model's backfill."""

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.jobs import JobRepository
from app.memories.repository import EmbeddingSpaceRepository, MemoryRepository
from app.memories.rescore_repository import RescoreRepository
from app.sessions.vector_repository import MessageVectorRepository


class EmbeddingModelChanged(RuntimeError):
    """The stored vectors come from another model than the configured one."""

    def __init__(self, stored: str, configured: str) -> None:
        super().__init__(
            f"The stored embeddings come from {stored!r} but the embedder is {configured!r}: "
            "vectors of two models cannot be compared. Run `python -m app reembed` to "
            "recompute every embedding with the new model, set "
            "CE_EMBEDDINGS__REEMBED_ON_MODEL_CHANGE=true to have the service do it in the "
            "background at start, or restore the old setting."
        )


async def vectors_from(session: AsyncSession, model: str, dimensions: int) -> bool:
    """Whether the stored vectors already come from `model` at `dimensions`."""
    space = await EmbeddingSpaceRepository(session).get()
    return space is not None and (space.model, space.dimensions) == (model, dimensions)


async def reembed_all(session: AsyncSession, model: str, dimensions: int, max_attempts: int) -> int:
    """Switch the embedding columns (memories' and session messages') to `dimensions`, record
    `model` as the one the vectors come from, and queue every memory and every session for
    re-embedding; returns how many memories were queued."""
    memories = MemoryRepository(session)
    await memories.reset_embeddings(dimensions)
    session_ids = await MessageVectorRepository(session).reset(dimensions)
    await EmbeddingSpaceRepository(session).record(model, dimensions)
    memory_ids = await memories.all_ids()
    jobs = JobRepository(session)
    await jobs.enqueue(memory_ids, "embed", max_attempts=max_attempts)
    for session_id in session_ids:
        await jobs.enqueue_for_session(session_id, "embed_messages", max_attempts=max_attempts)
    return len(memory_ids)


async def check_embedding_model(
    session: AsyncSession, model: str, dimensions: int, *, reembed: bool, max_attempts: int
) -> int:
    """Record the configured model on a new database, or check it against the stored one.

    Another model raises EmbeddingModelChanged, unless `reembed` allows re-embedding every
    memory in the background; returns how many memories were queued for that.
    """
    spaces = EmbeddingSpaceRepository(session)
    space = await spaces.get(for_update=True)  # two starts at once re-embed only once
    if space is not None and space.model == model:
        return 0
    if space is None or not (
        await MemoryRepository(session).any_embedded()
        or await MessageVectorRepository(session).any_embedded()
    ):
        await spaces.record(model, dimensions)  # no vector of another model to mix with
        return 0
    if not reembed:
        raise EmbeddingModelChanged(space.model, model)
    return await reembed_all(session, model, dimensions, max_attempts)


async def queue_rescoring(session: AsyncSession, model: str | None, max_attempts: int) -> int:
    """At start: drop the rescoring vectors of any model but the configured one (all of them,
    and the waiting rescore jobs, when none is), and queue the memories without one (written
    before it was set, or while it was another); how many."""
    rescoring = RescoreRepository(session)
    await rescoring.lock()
    await rescoring.drop_other_models(model)
    if model is None:
        return 0
    missing = await rescoring.unqueued()
    await JobRepository(session).enqueue(missing, "rescore", max_attempts=max_attempts)
    return len(missing)
