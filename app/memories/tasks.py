"""Background work on memories: embeddings and LLM summaries."""

import asyncio
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.jobs import ClaimedJob, JobRepository
from app.memories.repository import MemoryRepository
from app.memories.representations import SUMMARY_MAX_TOKENS
from app.providers.embeddings import Embedder
from app.providers.summarizer import LlmSummarizer
from app.providers.tokenizer import TokenCounter


class EmbedMemories:
    """Computes the embeddings of a batch of memories in one provider call."""

    task = "embed"

    def __init__(self, embedder: Embedder, batch_size: int) -> None:
        self.embedder = embedder
        self.batch_size = batch_size

    async def run(
        self, sessionmaker: async_sessionmaker[AsyncSession], jobs: Sequence[ClaimedJob]
    ) -> None:
        """Embed the memories' full text and store the vectors; raises to retry the batch."""
        async with sessionmaker() as session:
            texts = await MemoryRepository(session).texts_for_embedding(
                [job.memory_id for job in jobs]
            )
        memory_ids = list(texts)
        vectors = await self.embedder.embed([texts[m] for m in memory_ids])
        async with sessionmaker.begin() as session:
            await MemoryRepository(session).set_embeddings(
                [(m, texts[m], v) for m, v in zip(memory_ids, vectors, strict=True)],
                self.embedder.model_name,
            )
            await JobRepository(session).complete(jobs)


class SummarizeMemory:
    """Replaces an extractive summary with one written by the configured LLM."""

    task = "summarize"
    batch_size = 1

    def __init__(self, summarizer: LlmSummarizer, tokens: TokenCounter) -> None:
        self.summarizer = summarizer
        self.tokens = tokens

    async def run(
        self, sessionmaker: async_sessionmaker[AsyncSession], jobs: Sequence[ClaimedJob]
    ) -> None:
        """Summarize each memory; a memory whose summary is no longer extractive is left alone."""
        for job in jobs:
            async with sessionmaker() as session:
                memory = await MemoryRepository(session).get_by_id(job.memory_id)
                full_text = memory.full_text if memory else None
                wanted = memory is not None and memory.summary_source == "extractive"
            if full_text is not None and wanted:
                summary = await self.summarizer.summarize(full_text, SUMMARY_MAX_TOKENS)
                counts = await asyncio.to_thread(self.tokens.counts, summary)
                async with sessionmaker.begin() as session:
                    current = await MemoryRepository(session).get_by_id(job.memory_id)
                    if current is not None and current.full_text == full_text:
                        current.summary, current.summary_source = summary, "llm"
                        by_encoding: dict[str, int] = {str(k): v for k, v in counts.items()}
                        current.token_counts = {
                            enc: {**levels, "summary": by_encoding[enc]}
                            for enc, levels in current.token_counts.items()
                        }
                    await JobRepository(session).complete([job])
            else:
                async with sessionmaker.begin() as session:
                    await JobRepository(session).complete([job])
