"""Memories: write, read, list, update through their lifecycle, and erase."""

import asyncio
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import JsonValue
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.service import get_agent
from app.core.bodies import check_batch_size
from app.core.config import Settings
from app.core.errors import Conflict
from app.core.job_reads import JobReads
from app.core.jobs import JobRepository
from app.core.metrics import FACTS_CONFIRMED, MEMORIES_WRITTEN, observe_fact_writes
from app.core.time import utcnow
from app.memories import erasure, lifecycle, records
from app.memories.action_schemas import Confirm, MemoryUpdate
from app.memories.cold_repository import ColdStorage
from app.memories.cursor import decode_cursor, encode_cursor
from app.memories.duplicates import same_fact
from app.memories.models import Memory
from app.memories.repository import MemoryFilter, MemoryRepository
from app.memories.schemas import (
    FactCreate,
    MemoryBatchRead,
    MemoryCreate,
    MemoryPage,
    MemoryRead,
    WrittenMemory,
)
from app.memories.transition_repository import TransitionRepository
from app.memories.views import to_read
from app.providers.container import Providers
from app.tenants.models import Tenant


@dataclass(frozen=True)
class MemoryContext:
    """What memory writes need besides the session: providers and settings."""

    providers: Providers
    settings: Settings

    @property
    def default_encoding(self) -> str:
        return self.providers.tokens.default_encoding


async def _reads(
    session: AsyncSession, ctx: MemoryContext, memories: Sequence[Memory], agent_name: str
) -> list[MemoryRead]:
    jobs = await JobReads(session).for_memories([m.id for m in memories])
    cold = await ColdStorage(session).originals([m.id for m in memories if m.kind == "episode"])
    return [
        to_read(m, agent_name, jobs[m.id], ctx.default_encoding, cold.get(m.id)) for m in memories
    ]


async def enqueue_jobs(
    session: AsyncSession, ctx: MemoryContext, embed: list[uuid.UUID], summarize: list[uuid.UUID]
) -> None:
    jobs = JobRepository(session)
    attempts = ctx.settings.worker.max_attempts
    await jobs.enqueue(embed, "embed", max_attempts=attempts)
    if ctx.providers.rescorer is not None:  # a new text: both models' vectors
        await jobs.enqueue(embed, "rescore", max_attempts=attempts)
    if ctx.providers.llm is not None:
        await jobs.enqueue(summarize, "summarize", max_attempts=attempts)


async def create_memories(
    session: AsyncSession,
    ctx: MemoryContext,
    tenant: Tenant,
    agent_name: str,
    items: Sequence[MemoryCreate],
) -> MemoryBatchRead:
    """Store memories with their representations and queue their background work; all or none.
    A fact that repeats an active fact confirms that one instead of being stored again."""
    check_batch_size(items, ctx.settings.api.batch_max_items, "memories")
    agent = await get_agent(session, tenant, agent_name)
    repeated = await _confirm_repeated_facts(session, agent.id, items)
    fresh = [item for index, item in enumerate(items) if index not in repeated]
    created = iter(await _store_new(session, ctx, tenant.id, agent.id, fresh))
    memories = [repeated.get(index) or next(created) for index in range(len(items))]
    observe_fact_writes(
        created=sum(isinstance(item, FactCreate) for item in fresh), repeated=len(repeated)
    )
    reads = await _reads(session, ctx, memories, agent.name)
    return MemoryBatchRead(
        memories=[
            WrittenMemory(
                **read.model_dump(),
                written="confirmed_existing" if index in repeated else "created",
            )
            for index, read in enumerate(reads)
        ]
    )


async def _confirm_repeated_facts(
    session: AsyncSession, agent_id: uuid.UUID, items: Sequence[MemoryCreate]
) -> dict[int, Memory]:
    """The written facts that say again what an active fact says, by position, each with that
    fact, now confirmed once more (a fact repeated twice in one batch is confirmed twice)."""
    repository = MemoryRepository(session)
    facts = [(index, item) for index, item in enumerate(items) if isinstance(item, FactCreate)]
    similar = await repository.facts_like(
        agent_id, [item.content for _index, item in facts], lifecycle.CONFIRMABLE
    )
    matches: dict[int, uuid.UUID] = {}
    for (index, item), candidates in zip(facts, similar, strict=True):
        found = next((i for i, text in candidates if same_fact(item.content, text)), None)
        if found is not None:
            matches[index] = found
    locked = await repository.lock_in_order(list(matches.values())) if matches else {}
    repeated: dict[int, Memory] = {}
    for index, memory_id in matches.items():
        existing = locked.get(memory_id)
        if existing is None or existing.state not in lifecycle.CONFIRMABLE:
            continue  # erased or superseded meanwhile: the fact is stored anew
        fields: dict[str, JsonValue] = dict(existing.fields)
        transition = lifecycle.apply("fact", existing.state, fields, Confirm(action="confirm"))
        existing.fields = fields | transition.fields
        TransitionRepository(repository.session).record(
            existing.id, "confirm", existing.state, transition.state
        )
        existing.state = transition.state
        existing.rank_factor = 1.0  # confirmed: no longer stale (`app.retention`)
        existing.updated_at = utcnow()
        repeated[index] = existing
    await repository.flush()
    return repeated


async def _store_new(
    session: AsyncSession,
    ctx: MemoryContext,
    tenant_id: uuid.UUID,
    agent_id: uuid.UUID,
    items: Sequence[MemoryCreate],
) -> list[Memory]:
    """New rows for `items`, their background work queued."""
    if not items:
        return []
    fields = [records.fields_of(item) for item in items]
    # Summaries and token counts are CPU work: keep them off the event loop.
    kinds_and_fields = [(item.kind, own) for item, own in zip(items, fields, strict=True)]
    rendered = await asyncio.to_thread(records.render_all, kinds_and_fields, ctx.providers)
    now = utcnow()
    memories = [
        records.new_memory(tenant_id, agent_id, item, own, result, counts, now)
        for item, own, (result, counts) in zip(items, fields, rendered, strict=True)
    ]
    await MemoryRepository(session).add_all(memories)
    await enqueue_jobs(
        session,
        ctx,
        embed=[m.id for m in memories],
        summarize=[
            m.id
            for m, (r, counts) in zip(memories, rendered, strict=True)
            if records.wants_llm_summary(r, counts, ctx.default_encoding, ctx.settings)
        ],
    )
    for memory in memories:
        MEMORIES_WRITTEN.labels(memory.kind).inc()
    return memories


async def _get(
    session: AsyncSession, tenant: Tenant, memory_id: uuid.UUID, *, for_update: bool = False
) -> tuple[Memory, str]:
    found = await MemoryRepository(session).get(tenant.id, memory_id, for_update=for_update)
    if found is None:
        raise await erasure.missing(session, tenant.id, memory_id)
    return found[0], found[1].name


async def read_memory(
    session: AsyncSession, ctx: MemoryContext, tenant: Tenant, memory_id: uuid.UUID
) -> MemoryRead:
    """The full record of one memory."""
    memory, agent_name = await _get(session, tenant, memory_id)
    return (await _reads(session, ctx, [memory], agent_name))[0]


async def list_memories(
    session: AsyncSession,
    ctx: MemoryContext,
    tenant: Tenant,
    agent_name: str,
    where: MemoryFilter,
    *,
    cursor: str | None,
    limit: int,
) -> MemoryPage:
    """One page of an agent's memories, newest first (best match first for a search, which
    comes in one page); a cursor keeps to the memories written before its position."""
    agent = await get_agent(session, tenant, agent_name)
    after = decode_cursor(cursor) if cursor else None
    rows = await MemoryRepository(session).page(agent.id, where, after=after, limit=limit + 1)
    page = rows[:limit]
    more = len(rows) > limit and not where.text
    return MemoryPage(
        items=await _reads(session, ctx, page, agent.name),
        next_cursor=encode_cursor(page[-1]) if more else None,
    )


async def _check_successor(
    session: AsyncSession, tenant: Tenant, memory: Memory, successor_id: uuid.UUID
) -> None:
    # Which memories exist and what they are is stored state, not the request's form: 409.
    # The successor is kept from being erased until this memory points at it.
    found = await MemoryRepository(session).get(tenant.id, successor_id, lock_against_delete=True)
    if successor_id == memory.id:
        raise Conflict("A fact cannot supersede itself.", superseded_by=str(successor_id))
    if found is None or found[0].agent_id != memory.agent_id or found[0].kind != "fact":
        raise Conflict(
            f"superseded_by must be another fact of the same agent; {successor_id} is not.",
            superseded_by=str(successor_id),
        )
    if found[0].state in ("inactive", "superseded"):
        raise Conflict(
            f"Fact {successor_id} is {found[0].state} itself.", superseded_by=str(successor_id)
        )


async def update_memory(
    session: AsyncSession,
    ctx: MemoryContext,
    tenant: Tenant,
    memory_id: uuid.UUID,
    update: MemoryUpdate,
) -> MemoryRead:
    """Apply one lifecycle action; 409 with the allowed actions when the memory's kind or state
    does not take it."""
    memory, agent_name = await _get(session, tenant, memory_id, for_update=True)
    fields: dict[str, JsonValue] = dict(memory.fields)
    try:
        transition = lifecycle.apply(memory.kind, memory.state, fields, update)
    except (lifecycle.NotAnAction, lifecycle.NotNow, lifecycle.Incomplete) as exc:
        raise Conflict(str(exc), state=memory.state, allowed_actions=exc.allowed) from exc
    if transition.superseded_by is not None:
        await _check_successor(session, tenant, memory, transition.superseded_by)
        memory.superseded_by = transition.superseded_by
    if isinstance(update, Confirm):
        FACTS_CONFIRMED.labels("action").inc()
        memory.rank_factor = 1.0  # confirmed: no longer stale (`app.retention`)
    changes = lifecycle.outcome_changes(memory.fields, transition.fields)
    fields.update(transition.fields)
    memory.fields = fields
    TransitionRepository(session).record(
        memory.id, update.action, memory.state, transition.state, changes
    )
    memory.state = transition.state
    if transition.outcome is not None:
        memory.outcome = transition.outcome
    if transition.rerender:
        await _rerender(session, ctx, memory)
    memory.updated_at = utcnow()
    await MemoryRepository(session).flush()
    return (await _reads(session, ctx, [memory], agent_name))[0]


async def _rerender(session: AsyncSession, ctx: MemoryContext, memory: Memory) -> None:
    """Recompute the representations after the fields changed, and queue what that needs."""
    fields: dict[str, JsonValue] = memory.fields
    ((result, counts),) = await asyncio.to_thread(
        records.render_all, [(memory.kind, fields)], ctx.providers
    )
    full_changed = result.full != memory.full_text
    memory.micro, memory.summary, memory.full_text = result.micro, result.summary, result.full
    memory.summary_source, memory.token_counts = result.summary_source, counts
    memory.anchors = list(result.anchors)
    await enqueue_jobs(
        session,
        ctx,
        embed=[memory.id] if full_changed else [],
        summarize=[memory.id]
        if records.wants_llm_summary(result, counts, ctx.default_encoding, ctx.settings)
        else [],
    )
