"""Background work on sessions: the summaries of their older spans (`spans.py`), and of their
long assistant and tool messages one by one (depth 0: shown in a message's place under pressure)."""

import asyncio
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import structlog
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.context_config import ContextSettings
from app.core.job_models import ClaimedJob, ProviderGate
from app.core.jobs import JobRepository
from app.providers.errors import ProviderRejected, ProviderUnavailable
from app.providers.summarizer import ExtractiveSummarizer, GuardedSummarizer
from app.providers.tokenizer import TokenCounter
from app.sessions import digest
from app.sessions.models import SessionSummary
from app.sessions.repository import SessionRepository
from app.sessions.spans import Place, due
from app.sessions.summary_repository import SummaryRepository

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class _Parts:
    """What a summary is made of: its lines to quote, the text an LLM would read, and the
    times of its first and last message."""

    lines: list[digest.Line]
    prompt: str
    messages: int
    first_at: datetime
    last_at: datetime
    message_tokens: int = 0  # of the one message a depth-0 summary stands for


class SummarizeSpans:
    """Makes a session's missing span summaries: by the configured LLM when there is one and
    it answers, else extractive. Several workers may run it on one session: a summary is
    stored once (its place is unique) and the others' copies are dropped."""

    task = "summarize_spans"
    batch_size = 1
    # Never paused: while the LLM is away, the summaries are made extractive.
    breaker: ProviderGate | None = None

    def __init__(
        self,
        tokens: TokenCounter,
        llm: GuardedSummarizer | None,
        settings: ContextSettings,
        max_attempts: int,
    ) -> None:
        self.tokens = tokens
        self.extractive = ExtractiveSummarizer(tokens)
        self.llm = llm
        self.settings = settings.summaries
        self.fresh_tail = settings.window.fresh_tail
        self.max_attempts = max_attempts

    async def run(
        self, sessionmaker: async_sessionmaker[AsyncSession], jobs: Sequence[ClaimedJob]
    ) -> Mapping[int, str]:
        """Make up to `per_job` missing summaries of each job's session, and queue the
        session again when more are missing."""
        for job in jobs:
            await self._session(sessionmaker, job)
        return {}

    async def _session(
        self, sessionmaker: async_sessionmaker[AsyncSession], job: ClaimedJob
    ) -> None:
        async with sessionmaker() as session:
            conversation = await SessionRepository(session).by_id(job.subject_id)
            count = conversation.message_count if conversation else 0
            summaries = SummaryRepository(session)
            existing = await summaries.summary_places(job.subject_id)
            s = self.settings
            longs = (
                await summaries.long_unsummarized(
                    job.subject_id, s.long_message_tokens, s.per_job + 1
                )
                if s.long_message_tokens
                else []
            )
        # The long messages' own summaries first: a build can use them at once.
        places = [Place(0, m.seq, m.seq) for m in longs]
        places += due(count, self.fresh_tail, s.span, s.fanout, existing)
        for place in places[: s.per_job]:
            async with sessionmaker.begin() as session:
                if not await self._make(session, job.subject_id, place):
                    break  # the session was erased meanwhile, and its job with it
        upgraded = await self._upgrade(sessionmaker, job.subject_id, s.per_job - len(places))
        async with sessionmaker.begin() as session:
            jobs = JobRepository(session)
            if await jobs.complete([job]) and (len(places) > s.per_job or upgraded):
                await jobs.enqueue_for_session(
                    job.subject_id, "summarize_spans", max_attempts=self.max_attempts
                )
        log.info("sessions.summarized", made=min(len(places), s.per_job), due=len(places))

    async def _upgrade(
        self, sessionmaker: async_sessionmaker[AsyncSession], session_id: uuid.UUID, room: int
    ) -> bool:
        """With an LLM and `room` left in the job, rewrite that many of the session's summaries
        made extractive while it was away; whether more may be left (it answered them all)."""
        if self.llm is None or room <= 0:
            return False
        async with sessionmaker() as session:
            found = await SummaryRepository(session).extractive_places(session_id, room + 1)
        for depth, first, last in found[:room]:
            async with sessionmaker.begin() as session:
                place = Place(depth, first, last)
                if not await self._make(session, session_id, place, upgrade=True):
                    return False  # still away: the next job tries again
        return len(found) > room

    async def _make(
        self,
        session: AsyncSession,
        session_id: uuid.UUID,
        at: Place,
        *,
        upgrade: bool = False,
    ) -> bool:
        """Make the summary at `at` and store it; with `upgrade`, only an LLM's, in place of
        the extractive one there. False when the LLM did not write it, or when the session
        was erased (before, or while the summary was written: nothing is stored then)."""
        parts = await self._parts(session, session_id, at)
        if parts is None:
            return False
        cap = self.settings.max_tokens
        text = await self._by_llm(parts.prompt, cap)
        if upgrade and text is None:
            return False
        if at.depth == 0:  # one message: its sentences, under the tokens it stands for
            head = f"[Summarized: {parts.message_tokens:,} tokens]"
            body = text or await asyncio.to_thread(self.extractive.summarize, parts.prompt, cap)
            found = digest.Digest(f"{head} {body}", [] if text else [at.first_seq])
        else:
            head = digest.header(at.depth, parts.messages, parts.first_at, parts.last_at)
            found = (
                digest.Digest(f"{head}\n{text}", [])
                if text is not None
                else await asyncio.to_thread(digest.extract, self.tokens, parts.lines, head, cap)
            )
        tokens = await asyncio.to_thread(self.tokens.count, found.content)
        if not await SessionRepository(session).hold(session_id):
            return False
        await SummaryRepository(session).add_summary(
            SessionSummary(
                id=uuid.uuid4(),
                session_id=session_id,
                depth=at.depth,
                first_seq=at.first_seq,
                last_seq=at.last_seq,
                message_count=parts.messages,
                first_message_at=parts.first_at,
                last_message_at=parts.last_at,
                content=found.content,
                tokens=tokens,
                method="extractive" if text is None else "llm",
                quoted_seqs=found.quoted_seqs,
            ),
            upgrade=upgrade,
        )
        return True

    async def _parts(
        self, session: AsyncSession, session_id: uuid.UUID, at: Place
    ) -> _Parts | None:
        """What the summary at `at` is made of; None when the session is gone."""
        if at.depth <= 1:
            span = self.settings.span if at.depth else 1
            rows = await SessionRepository(session).page(
                session_id, after=at.first_seq - 1, limit=span
            )
            if not rows:
                return None
            triples = [(m.seq, m.role, m.content) for m in rows]
            if at.depth == 0:
                (row,) = rows
                return _Parts([], row.content, 1, row.created_at, row.created_at, row.tokens)
            return _Parts(
                await asyncio.to_thread(digest.message_lines, triples),
                digest.prompt_text([(m.role, m.content) for m in rows]),
                len(rows),
                rows[0].created_at,
                rows[-1].created_at,
            )
        size = (at.last_seq - at.first_seq + 1) // self.settings.fanout
        firsts = [(at.depth - 1, at.first_seq + i * size) for i in range(self.settings.fanout)]
        found = await SummaryRepository(session).summaries_at(session_id, firsts)
        if not found:
            return None
        return _Parts(
            digest.summary_lines([(p.content, p.quoted_seqs) for p in found]),
            "\n\n".join(p.content for p in found),
            sum(p.message_count for p in found),
            found[0].first_message_at,
            found[-1].last_message_at,
        )

    async def _by_llm(self, prompt: str, cap: int) -> str | None:
        return await conversation_summary(self.llm, prompt, cap)


async def conversation_summary(llm: GuardedSummarizer | None, prompt: str, cap: int) -> str | None:
    """The LLM's summary of a conversation's text; None without one, while it is away, or when
    it refuses (the extractive summary stands in: faults delay nothing)."""
    if llm is None:
        return None
    try:
        return await llm.summarize(prompt, cap, "conversation")
    except (ProviderUnavailable, ProviderRejected) as exc:
        log.warning("sessions.summary_extractive", reason=str(exc)[:200])
        return None
