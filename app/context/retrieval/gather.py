"""The gather step: what a build reads before it knows its frame: the agent, its standing
layers (censors, reviewed decisions), the period the input names and the input's word matches,
read while the input is embedded on a thread."""

import asyncio
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.models import Agent
from app.agents.service import get_agent
from app.context.engine import ContextEngine
from app.context.repository import ContextRepository
from app.context.retrieval.input_embedding import embed_input, take_kept_vectors
from app.context.retrieval.periods import mentioned_period
from app.context.retrieval.search import SearchRepository
from app.context.retrieval.search_sql import SearchSpec, WordHits
from app.context.schemas import ContextBuildRequest
from app.context.types import FLEXIBLE_KINDS, InputEmbedding, Period, Standing
from app.core.clock import Clock
from app.core.time import utcnow
from app.tenants.models import Tenant


@dataclass(frozen=True)
class Gathered:
    """What a build reads before it knows its frame."""

    agent: Agent
    standing: Standing
    period: Period | None
    spec: SearchSpec
    words: WordHits
    embedding: InputEmbedding


async def gather(
    session: AsyncSession,
    engine: ContextEngine,
    tenant: Tenant,
    request: ContextBuildRequest,
    search: SearchRepository,
    clock: Clock,
) -> Gathered:
    """The agent, its standing layers and the input's word matches, read while the input is
    embedded on a thread (the clock's "words"); then the vector ("embed": the wait beyond)."""
    await take_kept_vectors(session, engine, tenant, request.input)
    embedding = asyncio.create_task(embed_input(engine, tenant, request.input))
    try:
        agent = await get_agent(session, tenant, request.agent_id)
        standing = await ContextRepository(session).standing(agent.id, engine.censors)
        period = mentioned_period(request.input, request.now or utcnow())
        spec = SearchSpec.of(
            engine.settings,
            agent.id,
            request.input,
            request.kinds or FLEXIBLE_KINDS,
            corpus_size=await search.agent_size(agent.id),
            metadata=request.metadata,
            period=period,
        )
        words = await search.match_words(spec)
        clock.lap("words")
        embedded = await embedding
    finally:
        embedding.cancel()  # a no-op once embedded; else the build failed and needs no vector
    return Gathered(agent, standing, period, spec, words, embedded)
