"""Search an agent's memories over REST (`GET /agents/{agent_id}/memories/search`): what the
search_memory tool finds among memories, ranked and gated as a build ranks and gates them, as
data with its scores; nothing is stored (a build is)."""

import uuid
from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.service import get_agent
from app.context.engine import ContextEngine
from app.context.retrieval.search import SearchRepository
from app.context.text.parts import score_parts
from app.context.types import FLEXIBLE_KINDS, Admission, FlexibleKind, Scored
from app.core.errors import InvalidInput
from app.tenants.models import Tenant
from app.tools.search_query import understand
from app.tools.search_sources import found_memories


class FoundMemory(BaseModel):
    """A memory the query finds: its score as a build ranks it, and why the gate let it in."""

    memory_id: uuid.UUID
    kind: FlexibleKind
    state: str
    occurred_at: datetime
    score: float
    reason: Admission = Field(
        description="Why it may take a place in a build: `meaning`, `words`, `kind_best`, "
        "`standout`, `neighbour`, `period` or `linked` (as a build's manifest says)."
    )
    components: dict[str, float] = Field(description="The parts of the score, as a build's.")
    summary: str
    excerpt: str | None = Field(
        description="The passages of its full text around the query's words, when its summary "
        "holds none of them."
    )


class MemorySearchResponse(BaseModel):
    """The memories a query finds, best first."""

    query: str
    by_meaning: bool = Field(
        description="False when the query could not be embedded in time: found by words alone."
    )
    memories: list[FoundMemory]


def _found(scored: Scored, reason: Admission, parts: dict[str, float]) -> FoundMemory:
    candidate = scored.candidate
    return FoundMemory(
        memory_id=candidate.memory_id,
        kind=candidate.kind,
        state=candidate.state,
        occurred_at=candidate.occurred_at,
        score=round(scored.score, 6),
        reason=reason,
        components=parts,
        summary=candidate.summary,
        excerpt=candidate.excerpt,
    )


async def search_memories(
    session: AsyncSession,
    engine: ContextEngine,
    tenant: Tenant,
    agent_name: str,
    text: str,
    kinds: Sequence[FlexibleKind],
    limit: int,
) -> MemorySearchResponse:
    """The agent's memories (of `kinds`, all when none) that `text` finds, at most `limit`;
    422 for a text of spaces alone."""
    if not text.strip():
        raise InvalidInput("q must hold a word to search for, not only spaces", loc=["query", "q"])
    agent = await get_agent(session, tenant, agent_name)
    search = SearchRepository(session, engine.corpus)
    query = await understand(
        engine, tenant, agent.id, search, text, kinds or FLEXIBLE_KINDS, limit=limit
    )
    found = await found_memories(session, engine, query)
    return MemorySearchResponse(
        query=text,
        by_meaning=query.vector is not None,
        memories=[
            _found(scored, reason, parts)
            for (scored, reason), parts in zip(
                found, score_parts([scored for scored, _ in found]), strict=True
            )
        ],
    )
