"""What a search of memory searches with (the search_memory tool's, and the REST memory search
`memory_search.py`), worked out once for every source: the query's words as
PostgreSQL stems them and their memory matches, the day or month it names, and its embedding
(read while the words are matched, as a build does; past the deadline, words alone)."""

import asyncio
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from app.context.engine import ContextEngine
from app.context.retrieval.input_embedding import embed_input
from app.context.retrieval.periods import mentioned_period
from app.context.retrieval.search import SearchRepository
from app.context.retrieval.search_sql import SearchSpec, WordHits
from app.context.types import FlexibleKind, Period, Vector
from app.core.time import utcnow
from app.tenants.models import Tenant


@dataclass(frozen=True)
class SearchQuery:
    """One search's query, as every source reads it."""

    text: str
    limit: int
    session_id: str | None
    now: datetime
    spec: SearchSpec
    words: WordHits
    vector: Vector | None
    period: Period | None
    rescore: Vector | None = None  # the rescoring model's vector, where one is set

    @property
    def terms(self) -> frozenset[str]:
        """The query's words as PostgreSQL stems them (stop words dropped)."""
        return self.words.terms


async def understand(
    engine: ContextEngine,
    tenant: Tenant,
    agent_id: uuid.UUID,
    search: SearchRepository,
    text: str,
    kinds: Sequence[FlexibleKind],
    *,
    limit: int,
    session_id: str | None = None,
) -> SearchQuery:
    """The query's word matches among the agent's memories (of `kinds`), read while it is
    embedded on a thread."""
    embedding = asyncio.create_task(embed_input(engine, tenant, text))
    try:
        now = utcnow()
        period = mentioned_period(text, now)
        spec = SearchSpec.of(
            engine.settings,
            agent_id,
            text,
            kinds,
            corpus_size=await search.agent_size(agent_id),
            period=period,
        )
        words = await search.match_words(spec)
        embedded = await embedding
    finally:
        embedding.cancel()  # a no-op once embedded
    return SearchQuery(
        text, limit, session_id, now, spec, words, embedded.vector, period, embedded.rescore
    )
