"""Efforts of a session: opened, concluded (summarized in the background), expanded, listed,
searched and referenced. The tools an LLM calls (`expand_effort`, `effort_status`, efforts in
`search_memory`) are these functions; a tool call on an effort is a reference to it."""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, cast

import numpy as np
import structlog
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.service import get_agent
from app.core.context_config import EffortSettings
from app.core.errors import Conflict, NotFound
from app.core.job_models import Task
from app.core.jobs import JobRepository
from app.core.time import utcnow
from app.core.vector import Embedding
from app.efforts.models import SessionEffort
from app.efforts.repository import EffortRepository
from app.efforts.schemas import (
    EffortCreate,
    EffortExpanded,
    EffortFound,
    EffortList,
    EffortRead,
    EffortSearchResult,
    EffortState,
    SummaryMethod,
)
from app.efforts.search import fuse
from app.efforts.working import placement, view
from app.providers.embeddings import GuardedEmbedder
from app.providers.errors import ProviderError
from app.sessions.models import ConversationSession
from app.sessions.repository import SessionRepository
from app.sessions.schemas import MessageRead
from app.tenants.models import Tenant

TASK: Task = "effort_summaries"
log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class Where:
    """A session of an agent, by their names (as in URLs)."""

    agent: str
    session: str


class _Found(NamedTuple):
    conversation: ConversationSession
    repository: EffortRepository
    effort: SessionEffort


async def _session(
    session: AsyncSession, tenant: Tenant, where: Where, *, lock: bool
) -> ConversationSession:
    """The agent's session; with `lock`, locked until the transaction ends."""
    agent = await get_agent(session, tenant, where.agent)
    repository = SessionRepository(session)
    found = await repository.get(agent.id, where.session)
    if found is None:
        raise NotFound(
            f"Agent '{where.agent}' has no session '{where.session}'. Its first message or "
            f"effort creates it: POST /agents/{where.agent}/sessions/{where.session}/efforts."
        )
    if not lock:
        return found
    return await repository.lock_or_create(tenant.id, agent.id, where.session, utcnow())


async def _locate(
    session: AsyncSession, tenant: Tenant, where: Where, effort_id: str, *, lock: bool
) -> _Found:
    """The session (locked with `lock`) and its effort; 404 for either unknown."""
    conversation = await _session(session, tenant, where, lock=lock)
    repository = EffortRepository(session)
    effort = await repository.get(conversation.id, int(effort_id.removeprefix("e_")))
    if effort is None:
        raise NotFound(
            f"Session '{where.session}' has no effort '{effort_id}'; GET its efforts to list them."
        )
    return _Found(conversation, repository, effort)


async def _answer(found: _Found, settings: EffortSettings) -> EffortRead:
    """The effort as it stands now."""
    await found.repository.flush()
    (read,) = await _reads(found.repository, found.conversation, [found.effort], settings)
    return read


def effort_read(
    effort: SessionEffort, turn: int, size: tuple[int, int], settings: EffortSettings
) -> EffortRead:
    """An effort as the API shows it, at the session's `turn`."""
    return EffortRead(
        effort_id=effort.effort_id,
        title=effort.title,
        goal=effort.goal,
        state=cast(EffortState, effort.state),
        summary=effort.summary,
        summary_method=cast(SummaryMethod | None, effort.method),
        messages=size[0],
        tokens=size[1],
        opened_turn=effort.opened_turn,
        concluded_turn=effort.concluded_turn,
        expanded_turn=effort.expanded_turn,
        last_referenced_turn=effort.last_referenced_turn,
        in_working_memory=placement(view(effort), turn, settings) != "evicted",
        created_at=effort.created_at,
        concluded_at=effort.concluded_at,
    )


async def _reads(
    repository: EffortRepository,
    conversation: ConversationSession,
    efforts: Sequence[SessionEffort],
    settings: EffortSettings,
) -> list[EffortRead]:
    sizes = await repository.sizes(conversation.id)
    turn = conversation.turns
    return [effort_read(e, turn, sizes.get(e.id, (0, 0)), settings) for e in efforts]


async def open_effort(
    session: AsyncSession,
    tenant: Tenant,
    where: Where,
    body: EffortCreate,
    settings: EffortSettings,
) -> EffortRead:
    """Open an effort (the session is created when new); 409 while another one is open."""
    agent = await get_agent(session, tenant, where.agent)
    conversation = await SessionRepository(session).lock_or_create(
        tenant.id, agent.id, where.session, utcnow()
    )
    repository = EffortRepository(session)
    current = await repository.open_of(conversation.id)
    if current is not None:
        raise Conflict(
            f"Effort '{current.effort_id}' ({current.title}) is open in session "
            f"'{where.session}'; conclude it first: POST .../efforts/{current.effort_id}/conclude.",
            open_effort_id=current.effort_id,
        )
    turn = conversation.turns
    effort = SessionEffort(
        id=uuid.uuid4(),
        session_id=conversation.id,
        number=await repository.next_number(conversation.id),
        title=body.title,
        goal=body.goal,
        state="open",
        opened_turn=turn,
        last_referenced_turn=turn,
    )
    await repository.add(effort)
    await repository.set_keywords(effort.id, "", 0)
    return effort_read(effort, turn, (0, 0), settings)


async def conclude_effort(
    session: AsyncSession,
    tenant: Tenant,
    where: Where,
    effort_id: str,
    settings: EffortSettings,
    *,
    max_attempts: int,
) -> EffortRead:
    """Conclude the open effort; its summary is made in the background (`tasks.py`)."""
    found = await _locate(session, tenant, where, effort_id, lock=True)
    effort, conversation = found.effort, found.conversation
    if effort.state != "open":
        raise Conflict(
            f"Effort '{effort_id}' is {effort.state}, not open: only an open effort concludes.",
            state=effort.state,
        )
    effort.state = "concluded"
    effort.concluded_turn = effort.last_referenced_turn = conversation.turns
    effort.concluded_at = utcnow()
    await JobRepository(session).enqueue_for_session(
        conversation.id, TASK, max_attempts=max_attempts
    )
    return await _answer(found, settings)


async def expand_effort(
    session: AsyncSession, tenant: Tenant, where: Where, effort_id: str, settings: EffortSettings
) -> EffortExpanded:
    """Load a concluded effort's raw messages back into working memory, until it goes
    `expanded_decay_turns` turns without a reference; 409 for an open or expanded one."""
    found = await _locate(session, tenant, where, effort_id, lock=True)
    effort = found.effort
    if effort.state != "concluded":
        raise Conflict(
            f"Effort '{effort_id}' is {effort.state}: only a concluded effort expands.",
            state=effort.state,
        )
    effort.state = "expanded"
    effort.expanded_turn = effort.last_referenced_turn = found.conversation.turns
    read = await _answer(found, settings)
    messages = await found.repository.messages_of(effort.id)
    return EffortExpanded(
        effort=read,
        messages=[MessageRead.model_validate(m, from_attributes=True) for m in messages],
    )


async def list_efforts(
    session: AsyncSession, tenant: Tenant, where: Where, settings: EffortSettings
) -> EffortList:
    """The session's efforts, oldest first, with their state and summary."""
    conversation = await _session(session, tenant, where, lock=False)
    repository = EffortRepository(session)
    efforts = await repository.for_session(conversation.id)
    items = await _reads(repository, conversation, efforts, settings)
    return EffortList(session_id=where.session, turn=conversation.turns, items=items)


async def effort_status(
    session: AsyncSession, tenant: Tenant, where: Where, effort_id: str, settings: EffortSettings
) -> EffortRead:
    """One effort: its state, summary, size and the turn it was last referenced."""
    return await _answer(await _locate(session, tenant, where, effort_id, lock=False), settings)


async def search_efforts(
    session: AsyncSession,
    tenant: Tenant,
    where: Where,
    query: str,
    limit: int,
    settings: EffortSettings,
    embedder: GuardedEmbedder | None = None,
    deadline: float | None = None,
    vector: Embedding | None = None,
) -> EffortSearchResult:
    """The session's efforts (evicted ones too) whose title, goal or summary hold the query's
    words (stemmed), that it names (`e_4`), or, with an `embedder`, one of whose messages is at
    least `search_min_similarity` close to it in meaning; best first (`search.fuse`), at most
    `limit`; `vector`, the query's when the caller has it, spares embedding it again.
    Searching is not a reference: a tool that shows the results calls `reference` for
    the ones it returns."""
    conversation = await _session(session, tenant, where, lock=False)
    repository = EffortRepository(session)
    words = await repository.search(conversation.id, query, limit)
    if vector is None and embedder is not None:
        vector = await _query_vector(embedder, query, deadline)
    meaning = (
        await repository.by_meaning(conversation.id, vector, settings.search_min_similarity, limit)
        if vector is not None
        else []
    )
    hits = fuse(words, meaning, limit)
    efforts = {e.id: e for e in await repository.by_ids([hit.effort_id for hit in hits])}
    reads = await _reads(repository, conversation, [efforts[h.effort_id] for h in hits], settings)
    return EffortSearchResult(
        query=query,
        items=[
            EffortFound(
                effort=read,
                score=round(hit.score, 6),
                by=hit.by,
                similarity=None if hit.similarity is None else round(hit.similarity, 4),
            )
            for read, hit in zip(reads, hits, strict=True)
        ],
    )


async def _query_vector(
    embedder: GuardedEmbedder, query: str, deadline: float | None
) -> Embedding | None:
    """The query's vector; None when the embedder does not answer in time (words alone)."""
    try:
        (vector,) = await embedder.embed_queries([query], deadline=deadline)
    except ProviderError as exc:
        log.warning("efforts.search_by_words", error=str(exc))
        return None
    return np.asarray(vector, dtype=np.float32)


async def reference(
    session: AsyncSession, tenant: Tenant, where: Where, effort_id: str, settings: EffortSettings
) -> EffortRead:
    """Count a reference to the effort at the session's current turn (a tool call on it):
    its summary is back in working memory, an expanded one stays raw."""
    found = await _locate(session, tenant, where, effort_id, lock=True)
    effort = found.effort
    effort.last_referenced_turn = max(effort.last_referenced_turn, found.conversation.turns)
    return await _answer(found, settings)
