"""Background work on memories: embeddings and LLM summaries."""

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.job_models import ClaimedJob, ProviderGate
from app.core.jobs import JobRepository
from app.memories.repository import EmbeddingSpaceRepository, MemoryRepository
from app.memories.representations import SUMMARY_MAX_TOKENS, episode_head
from app.providers.embeddings import GuardedEmbedder
from app.providers.errors import ProviderRejected, ProviderUnavailable
from app.providers.summarizer import GuardedSummarizer
from app.providers.tokenizer import TokenCounter

# An input every provider accepts: when it is refused too, the fault is the configuration.
_PLAIN_INPUT = "A short plain sentence."


async def confirm_rejection(probe: Callable[[], Awaitable[object]], setting: str) -> None:
    """Make sure a rejection is the record's fault: the provider must accept a plain input.

    If it refuses that too, its configuration is wrong (a model that takes no `dimensions`, say):
    ProviderUnavailable, so the jobs wait for the fix instead of failing.
    """
    try:
        await probe()
    except ProviderRejected as exc:
        raise ProviderUnavailable(
            f"the provider rejects every input, check the {setting} settings: {exc}"
        ) from exc


async def check_model(session: AsyncSession, model_name: str) -> None:
    """Vectors of this process's model are stored only while it is the recorded one: a
    process left running on the old settings after a change of model writes none. Memories'
    and session messages' vectors alike: they share one embedding space."""
    recorded = await EmbeddingSpaceRepository(session).model()
    if recorded is not None and recorded != model_name:
        raise ProviderUnavailable(
            f"the stored vectors now come from {recorded!r} and this process embeds with "
            f"{model_name!r}: restart it with the new embedding settings"
        )


async def embed_one_by_one(
    embedder: GuardedEmbedder, texts: Mapping[uuid.UUID, str]
) -> tuple[dict[uuid.UUID, list[float]], dict[uuid.UUID, str]]:
    """Embed texts one call each, after the provider rejected them together: their vectors,
    and why it rejects those it refuses alone (all of them: its configuration is wrong)."""
    vectors: dict[uuid.UUID, list[float]] = {}
    rejected: dict[uuid.UUID, str] = {}
    for key, text in texts.items():
        try:
            (vectors[key],) = await embedder.embed([text])
        except ProviderRejected as exc:
            rejected[key] = str(exc)
    if rejected and not vectors:
        await confirm_rejection(lambda: embedder.embed([_PLAIN_INPUT]), "CE_EMBEDDINGS")
    return vectors, rejected


class EmbedMemories:
    """Computes the embeddings of a batch of memories in one provider call."""

    task = "embed"

    def __init__(self, embedder: GuardedEmbedder, batch_size: int) -> None:
        self.embedder = embedder
        self.batch_size = batch_size
        self.breaker: ProviderGate | None = embedder.breaker

    async def run(
        self, sessionmaker: async_sessionmaker[AsyncSession], jobs: Sequence[ClaimedJob]
    ) -> Mapping[int, str]:
        """Embed the memories' full text and store the vectors; raises to retry the batch.

        A batch the provider rejects is embedded memory by memory, so one bad record does not
        hold back the others; the records it rejects alone are returned as failed.
        """
        async with sessionmaker() as session:
            found = await MemoryRepository(session).texts_for_embedding(
                [job.subject_id for job in jobs]
            )
        # In the jobs' order (oldest first), not the database's; deleted memories are skipped.
        texts = {job.subject_id: found[job.subject_id] for job in jobs if job.subject_id in found}
        memory_ids = list(texts)
        rejected: dict[uuid.UUID, str] = {}
        try:
            vectors = dict(
                zip(memory_ids, await self.embedder.embed(list(texts.values())), strict=True)
            )
        except ProviderRejected:
            vectors, rejected = await embed_one_by_one(self.embedder, texts)
        async with sessionmaker.begin() as session:
            held = await self._complete(session, [j for j in jobs if j.subject_id not in rejected])
            # Only the jobs this claim still held: another worker may have taken the others over.
            stored = {job.subject_id for job in jobs if job.job_id in held}
            await self._store(
                MemoryRepository(session),
                [(m, texts[m], vector) for m, vector in vectors.items() if m in stored],
            )
        return {job.job_id: rejected[job.subject_id] for job in jobs if job.subject_id in rejected}

    async def _complete(self, session: AsyncSession, jobs: Sequence[ClaimedJob]) -> set[int]:
        await check_model(session, self.embedder.model_name)
        return await JobRepository(session).complete(jobs)

    async def _store(
        self, memories: MemoryRepository, embedded: Sequence[tuple[uuid.UUID, str, list[float]]]
    ) -> None:
        await memories.set_embeddings(embedded, self.embedder.model_name)


class RescoreMemories(EmbedMemories):
    """Computes the rescoring model's vectors of a batch of memories (CE_EMBEDDINGS__
    RESCORE_MODEL). It claims nothing while the search model's vectors wait: a memory is
    found by meaning first, rescored after."""

    task = "rescore"
    yields_to = "embed"

    async def _complete(self, session: AsyncSession, jobs: Sequence[ClaimedJob]) -> set[int]:
        return await JobRepository(session).complete(jobs)

    async def _store(
        self, memories: MemoryRepository, embedded: Sequence[tuple[uuid.UUID, str, list[float]]]
    ) -> None:
        await memories.set_rescore_embeddings(embedded, self.embedder.model_name)


class SummarizeMemory:
    """Replaces an extractive summary with one written by the configured LLM."""

    task = "summarize"
    batch_size = 1

    def __init__(self, summarizer: GuardedSummarizer, tokens: TokenCounter) -> None:
        self.summarizer = summarizer
        self.tokens = tokens
        self.breaker: ProviderGate | None = summarizer.breaker

    async def run(
        self, sessionmaker: async_sessionmaker[AsyncSession], jobs: Sequence[ClaimedJob]
    ) -> Mapping[int, str]:
        """Summarize each memory; a memory whose summary is no longer extractive is left alone.

        A memory the LLM refuses keeps its extractive summary and its job fails, visibly.
        """
        rejected: dict[int, str] = {}
        for job in jobs:
            try:
                await self._summarize(sessionmaker, job)
            except ProviderRejected as exc:
                await confirm_rejection(
                    lambda: self.summarizer.summarize(_PLAIN_INPUT, SUMMARY_MAX_TOKENS), "CE_LLM"
                )
                rejected[job.job_id] = str(exc)
        return rejected

    async def _summarize(
        self, sessionmaker: async_sessionmaker[AsyncSession], job: ClaimedJob
    ) -> None:
        async with sessionmaker() as session:
            memory = await MemoryRepository(session).get_by_id(job.subject_id)
            full_text = memory.full_text if memory else None
            wanted = memory is not None and memory.summary_source == "extractive"
            head = episode_head(memory.fields) if memory and memory.kind == "episode" else ""
        if full_text is None or not wanted:
            async with sessionmaker.begin() as session:
                await JobRepository(session).complete([job])
            return
        summary = await self.summarizer.summarize(full_text, SUMMARY_MAX_TOKENS)
        if head:  # an episode's summary starts with its title, as when it was written
            summary = f"{head} — {summary}"
        counts = await asyncio.to_thread(self.tokens.counts, summary)
        async with sessionmaker.begin() as session:
            if not await JobRepository(session).complete([job]):
                return  # taken over by another claim: its result is the one kept
            current = await MemoryRepository(session).get_by_id(job.subject_id)
            if current is not None and current.full_text == full_text:
                current.summary, current.summary_source = summary, "llm"
                by_encoding: dict[str, int] = {str(k): v for k, v in counts.items()}
                current.token_counts = {
                    enc: {**levels, "summary": by_encoding[enc]}
                    for enc, levels in current.token_counts.items()
                }
