"""Background work on sessions: the vectors of their messages, for recall by meaning."""

import uuid
from collections.abc import Mapping, Sequence

import structlog
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.job_models import ClaimedJob, ProviderGate
from app.core.jobs import JobRepository
from app.memories.tasks import check_model, embed_one_by_one
from app.providers.embeddings import GuardedEmbedder
from app.providers.errors import ProviderRejected
from app.providers.query_vectors import QueryVectors
from app.sessions.vector_repository import MessageVectorRepository

log = structlog.get_logger(__name__)


class EmbedMessages:
    """Embeds the messages of a session that have no vector yet, `batch_size` of them per
    run in one provider call; the job is queued again while more remain."""

    task = "embed_messages"
    # One session per claim: its run is a provider call of up to `messages_per_run` texts.
    batch_size = 1

    def __init__(
        self,
        embedder: GuardedEmbedder,
        messages_per_run: int,
        max_attempts: int,
        queries: QueryVectors | None = None,
    ) -> None:
        self.embedder = embedder
        self.queries = queries  # a message a build took as its input is embedded already
        self.messages_per_run = messages_per_run
        self.max_attempts = max_attempts
        self.breaker: ProviderGate | None = embedder.breaker

    async def run(
        self, sessionmaker: async_sessionmaker[AsyncSession], jobs: Sequence[ClaimedJob]
    ) -> Mapping[int, str]:
        """Embed each job's session's next messages and store their vectors; raises to retry.

        An outage (ProviderUnavailable) leaves the job to be retried, nothing lost. A batch the
        provider rejects is embedded message by message; a message it refuses alone keeps the
        reason and is found by its words only (the session's other messages are not held back).
        """
        for job in jobs:
            await self._embed_session(sessionmaker, job)
        return {}

    async def _embed_session(
        self, sessionmaker: async_sessionmaker[AsyncSession], job: ClaimedJob
    ) -> None:
        session_id = job.subject_id
        async with sessionmaker() as session:
            # One more than a run embeds: whether the job must come back.
            found = await MessageVectorRepository(session).unembedded(
                session_id, self.messages_per_run + 1
            )
        texts = {message_id: text for message_id, text, _tenant in found[: self.messages_per_run]}
        tenant = found[0][2] if found else None
        vectors, refused = await self._embed(tenant, texts) if tenant else ({}, {})
        async with sessionmaker.begin() as session:
            await check_model(session, self.embedder.model_name)
            jobs = JobRepository(session)
            if not await jobs.complete([job]):
                return  # taken over by another claim: its vectors are the ones stored
            await MessageVectorRepository(session).store(vectors, refused)
            if len(found) > self.messages_per_run:
                await jobs.enqueue_for_session(
                    session_id, "embed_messages", max_attempts=self.max_attempts
                )
        if refused:
            log.warning("messages.embedding_refused", session_id=str(session_id), reasons=refused)

    async def _embed(
        self, tenant: uuid.UUID, texts: Mapping[uuid.UUID, str]
    ) -> tuple[dict[uuid.UUID, list[float]], dict[uuid.UUID, str]]:
        known = await self.queries.reuse(tenant, texts) if self.queries else {}
        rest = {key: text for key, text in texts.items() if key not in known}
        if not rest:
            return known, {}
        try:
            embedded = await self.embedder.embed(list(rest.values()))
            return known | dict(zip(rest, embedded, strict=True)), {}
        except ProviderRejected:
            vectors, refused = await embed_one_by_one(self.embedder, rest)
            return known | vectors, refused
