"""`python -m app rerender`: every memory's micro and summary rendered again from its fields
(after the renderer changed), the embeddings and LLM summaries of those that changed queued."""

import asyncio
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.memories import records
from app.memories.models import Memory
from app.memories.repository import MemoryRepository
from app.memories.service import MemoryContext, enqueue_jobs
from app.providers.container import Providers


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
