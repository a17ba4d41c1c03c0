"""Operator tasks on the memory store, and the check of its embedding model at start."""

import asyncio
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.jobs import JobRepository
from app.memories import records
from app.memories.models import Memory
from app.memories.repository import EmbeddingSpaceRepository, MemoryRepository
from app.memories.rescore_repository import RescoreRepository
from app.memories.service import MemoryContext, enqueue_jobs
from app.providers.container import Providers
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


@dataclass(frozen=True)
class Rerendered:
    """What `rerender_all` did: memories read, those whose representations changed, and the
    embeddings and LLM summaries it queued again."""

    memories: int
    changed: int
    embeds: int
    summaries: int


async def rerender_all(
    sessionmaker: async_sessionmaker[AsyncSession],
    providers: Providers,
    settings: Settings,
    batch_size: int = 500,
    progress: Callable[[Rerendered], None] | None = None,
) -> Rerendered:
    """Render every memory's micro, summary and full text again with this version's templates
    (after an upgrade that changed them), a batch per transaction. An LLM summary stays while
    the full text it summarises is the same; a changed full text is embedded (and, where an LLM
    is configured and wanted, summarised) again in the background. `progress` hears the totals
    after each batch."""
    totals = [0, 0, 0, 0]
    after = -1
    while True:
        async with sessionmaker.begin() as session:
            memories = await MemoryRepository(session).batch_after(after, batch_size)
            if not memories:
                break
            after = memories[-1].seq
            done = await _rerender_batch(session, memories, providers, settings)
        totals = [a + b for a, b in zip(totals, (len(memories), *done), strict=True)]
        if progress is not None:
            progress(Rerendered(*totals))
    return Rerendered(*totals)


async def _rerender_batch(
    session: AsyncSession,
    memories: Sequence[Memory],
    providers: Providers,
    settings: Settings,
) -> tuple[int, int, int]:
    """Changed, embeds queued, summaries queued."""
    results = await asyncio.to_thread(
        records.render_all, [(m.kind, m.fields) for m in memories], providers
    )
    changed: list[Memory] = []
    embed: list[uuid.UUID] = []
    summarize: list[uuid.UUID] = []
    for memory, (rendered, counts) in zip(memories, results, strict=True):
        full_changed = rendered.full != memory.full_text
        keep_llm = memory.summary_source == "llm" and not full_changed
        summary = memory.summary if keep_llm else rendered.summary
        if (rendered.micro, summary, rendered.full) == (
            memory.micro,
            memory.summary,
            memory.full_text,
        ):
            continue
        changed.append(memory)
        memory.micro, memory.full_text = rendered.micro, rendered.full
        memory.anchors = list(rendered.anchors)
        if not keep_llm:
            memory.summary, memory.summary_source = rendered.summary, rendered.summary_source
        else:  # the LLM summary's own counts, by encoding
            counts = {
                encoding: {**levels, "summary": memory.token_counts[encoding]["summary"]}
                for encoding, levels in counts.items()
            }
        memory.token_counts = counts
        if full_changed:
            embed.append(memory.id)
            if records.wants_llm_summary(
                rendered, counts, providers.tokens.default_encoding, settings
            ):
                summarize.append(memory.id)
    if providers.llm is None:
        summarize = []  # as a write: no LLM, no summary jobs
    await enqueue_jobs(session, MemoryContext(providers, settings), embed, summarize)
    return len(changed), len(embed), len(summarize)
