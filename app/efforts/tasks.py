"""Background work on efforts: the summary of each concluded effort, by the configured LLM when
there is one and it answers, else extractive (its messages' most informative sentences, as a
span summary's body); then its keywords from it. Never paused: an outage delays nothing."""

import asyncio
import uuid
from collections.abc import Mapping, Sequence

import structlog
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.context_config import EffortSettings
from app.core.job_models import ClaimedJob, ProviderGate
from app.core.jobs import JobRepository
from app.efforts.repository import EffortRepository
from app.providers.summarizer import GuardedSummarizer
from app.providers.tokenizer import TokenCounter
from app.sessions import digest
from app.sessions.tasks import conversation_summary

log = structlog.get_logger(__name__)
# Efforts one job summarizes before it queues the session's next one.
PER_JOB = 20


class SummarizeEfforts:
    """Makes the missing summaries of a session's concluded efforts."""

    task = "effort_summaries"
    batch_size = 1
    breaker: ProviderGate | None = None

    def __init__(
        self,
        tokens: TokenCounter,
        llm: GuardedSummarizer | None,
        settings: EffortSettings,
        max_attempts: int,
    ) -> None:
        self.tokens = tokens
        self.llm = llm
        self.settings = settings
        self.max_attempts = max_attempts

    async def run(
        self, sessionmaker: async_sessionmaker[AsyncSession], jobs: Sequence[ClaimedJob]
    ) -> Mapping[int, str]:
        for job in jobs:
            async with sessionmaker() as session:
                due = await EffortRepository(session).unsummarized(job.subject_id, PER_JOB + 1)
                ids = [effort.id for effort in due]
            for effort_id in ids[:PER_JOB]:
                async with sessionmaker.begin() as session:
                    await self._summarize(session, effort_id)
            async with sessionmaker.begin() as session:
                jobs_ = JobRepository(session)
                if await jobs_.complete([job]) and len(ids) > PER_JOB:
                    await jobs_.enqueue_for_session(
                        job.subject_id, "effort_summaries", max_attempts=self.max_attempts
                    )
            log.info("efforts.summarized", made=min(len(ids), PER_JOB))
        return {}

    async def _summarize(self, session: AsyncSession, effort_id: uuid.UUID) -> None:
        repository = EffortRepository(session)
        efforts = await repository.by_ids([effort_id])
        if not efforts or efforts[0].summary is not None:  # erased, or made by another worker
            return
        effort = efforts[0]
        messages = await repository.messages_of(effort_id)
        cap = self.settings.summary_max_tokens
        prompt = digest.prompt_text([(m.role, m.content) for m in messages])
        text = await conversation_summary(self.llm, prompt, cap) if messages else None
        if text is not None:
            summary, said, method = text, text, "llm"
        else:
            triples = [(m.seq, m.role, m.content) for m in messages]
            lines = await asyncio.to_thread(digest.message_lines, triples)
            found = await asyncio.to_thread(digest.extract, self.tokens, lines, "", cap)
            summary = found.content.strip() or effort.title
            # Its keywords come from what the summary quotes, not from the speakers' roles.
            said = " ".join(line.partition(": ")[2] for line in summary.splitlines())
            method = "extractive"
        if not await repository.hold(effort_id):
            return  # erased with its session while the summary was written
        effort.summary = summary
        effort.summary_tokens = await asyncio.to_thread(self.tokens.count, summary)
        effort.method = method
        await repository.flush()
        await repository.set_keywords(effort_id, said, self.settings.keywords_max)
