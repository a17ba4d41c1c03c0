"""Retention runs: plan by the rules, apply under the agent's lock, record why; restore."""

import asyncio
import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from pydantic import JsonValue
from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.service import get_agent
from app.core.config import RetentionSettings
from app.core.errors import Conflict
from app.core.metrics import RETENTION_CHANGES
from app.core.time import utcnow
from app.memories import erasure, records
from app.memories.models import Memory, MemoryCold
from app.memories.repository import MemoryRepository
from app.memories.representations import episode_head
from app.providers.container import Providers
from app.retention import policy
from app.retention.limits import in_force
from app.retention.models import RetentionChange
from app.retention.repository import RetentionRepository
from app.retention.schemas import (
    MemoryPressure,
    MemoryRestored,
    RecordedChange,
    RetentionChangePage,
    RetentionChangeRead,
    RetentionRun,
    RetentionRunRead,
)
from app.retention.types import FORGOTTEN, Change, Plan
from app.tenants.models import Tenant

TRIMMING_RULES = ("episode_summarized", "episode_archived")
FACT_RULES = ("fact_stale", "fact_fresh")


async def run_for_agent(
    session: AsyncSession,
    providers: Providers,
    rules: RetentionSettings,
    agent_id: uuid.UUID,
    now: datetime,
    *,
    dry_run: bool,
) -> Plan:
    """One run for one agent as of `now`, in the caller's transaction: runs of one agent wait
    for each other, so the second sees what the first did and changes nothing again."""
    repository = RetentionRepository(session)
    await repository.lock_agent(agent_id)
    rules = in_force(rules, await repository.limits(agent_id))
    held = await repository.held(agent_id, providers.tokens.default_encoding)
    plan = policy.plan(held, now, rules)
    if dry_run or not plan.changes:
        return plan
    applied = await _apply(repository, providers, agent_id, plan.changes, now)
    for change in applied:
        RETENTION_CHANGES.labels(change.rule).inc()
    return replace(plan, changes=applied)


async def _apply(
    repository: RetentionRepository,
    providers: Providers,
    agent_id: uuid.UUID,
    changes: Sequence[Change],
    now: datetime,
) -> list[Change]:
    """Apply the changes whose memory is still as planned (a write may have come between),
    move trimmed episodes' records to cold storage, and record each change."""
    locked = await MemoryRepository(repository.session).lock_in_order(
        [change.memory_id for change in changes]
    )
    applied: list[Change] = []
    for change in changes:  # in order: a memory summarized, then forgotten, takes both
        memory = locked.get(change.memory_id)
        if memory is None or memory.state != change.from_state:
            continue
        if change.rank_factor is not None and memory.rank_factor == change.rank_factor:
            continue
        memory.state = change.to_state
        if change.rank_factor is not None:
            memory.rank_factor = change.rank_factor
        applied.append(change)
    trimmed = {c.memory_id for c in applied if c.rule in TRIMMING_RULES}
    await _to_cold(repository, providers, [locked[memory_id] for memory_id in sorted(trimmed)])
    await repository.add(
        [
            RetentionChange(
                agent_id=agent_id,
                memory_id=change.memory_id,
                kind=change.kind,
                rule=change.rule,
                from_state=change.from_state,
                to_state=change.to_state,
                reason=change.reason,
                details=change.details,
                as_of=now,
            )
            for change in applied
        ]
    )
    return applied


def trimmed_fields(memory: Memory) -> dict[str, JsonValue]:
    """An episode's fields with its detail cut to its summary (without the head line)."""
    head = episode_head(memory.fields)
    body = memory.summary.removeprefix(f"{head} — ") if head else memory.summary
    return {**memory.fields, "detail": body}


async def _to_cold(
    repository: RetentionRepository, providers: Providers, episodes: Sequence[Memory]
) -> None:
    """Keep each episode's record in cold storage (once: the first trim's is the original) and
    leave the summary and metadata in the memory; its vector stays, so it is found by meaning."""
    cold = await repository.cold_ids([memory.id for memory in episodes])
    moving = [memory for memory in episodes if memory.id not in cold]
    if not moving:
        return
    fields = [trimmed_fields(memory) for memory in moving]
    rendered = await asyncio.to_thread(
        records.render_all, [("episode", own) for own in fields], providers
    )
    originals = []
    for memory, own, (result, counts) in zip(moving, fields, rendered, strict=True):
        originals.append(
            MemoryCold(
                memory_id=memory.id,
                fields=memory.fields,
                full_text=memory.full_text,
                full_tokens={enc: levels["full"] for enc, levels in memory.token_counts.items()},
            )
        )
        memory.fields, memory.full_text = own, result.full
        memory.token_counts = {
            enc: {**levels, "full": counts[enc]["full"]}
            for enc, levels in memory.token_counts.items()
            if enc in counts
        }
    await repository.add(originals)


def _read(change: Change) -> RetentionChangeRead:
    return RetentionChangeRead.model_validate(change, from_attributes=True)


def _recorded(change: RetentionChange) -> RecordedChange:
    return RecordedChange.model_validate(
        {
            "change_id": change.id,
            "memory_id": change.memory_id,
            "kind": change.kind,
            "rule": change.rule,
            "from_state": change.from_state,
            "to_state": change.to_state,
            "reason": change.reason,
            "details": change.details,
            "rank_factor": change.details.get("rank_factor") if change.rule in FACT_RULES else None,
            "as_of": change.as_of,
            "created_at": change.created_at,
            "restored_at": change.restored_at,
        }
    )


async def run(
    session: AsyncSession,
    providers: Providers,
    rules: RetentionSettings,
    tenant: Tenant,
    agent_name: str,
    request: RetentionRun,
) -> RetentionRunRead:
    """Run retention for an agent of the tenant; what changed (or would), per memory."""
    agent = await get_agent(session, tenant, agent_name)
    now = request.now or utcnow()
    plan = await run_for_agent(session, providers, rules, agent.id, now, dry_run=request.dry_run)
    return RetentionRunRead(
        agent_id=agent.name,
        now=now,
        dry_run=request.dry_run,
        changes=[_read(change) for change in plan.changes],
        pressure=MemoryPressure.model_validate(plan.pressure, from_attributes=True),
    )


async def restore(session: AsyncSession, tenant: Tenant, memory_id: uuid.UUID) -> MemoryRestored:
    """Undo the forgetting of a memory: back to the state it was forgotten from, and never
    forgotten again by the size limit."""
    found = await MemoryRepository(session).get(tenant.id, memory_id, for_update=True)
    if found is None:
        raise await erasure.missing(session, tenant.id, memory_id)
    memory = found[0]
    repository = RetentionRepository(session)
    change = await repository.last_forgetting(memory.id)
    if memory.state != FORGOTTEN or change is None:
        raise Conflict(
            f"Memory {memory_id} is not forgotten (it is '{memory.state}'): only what "
            "retention forgot is restored.",
            state=memory.state,
        )
    memory.state = change.from_state
    change.restored_at = utcnow()
    await repository.flush()
    return MemoryRestored(
        memory_id=memory.id,
        kind=memory.kind,
        state=memory.state,
        undone=_recorded(change),
    )


async def list_changes(
    session: AsyncSession,
    tenant: Tenant,
    agent_name: str,
    memory_id: uuid.UUID | None,
    cursor: int | None,
    limit: int,
) -> RetentionChangePage:
    """The agent's recorded changes, newest first, optionally of one memory."""
    agent = await get_agent(session, tenant, agent_name)
    repository = RetentionRepository(session)
    rows = await repository.changes(agent.id, memory_id, cursor, limit + 1)
    page = rows[:limit]
    return RetentionChangePage(
        items=[_recorded(row) for row in page],
        next_cursor=page[-1].id if len(rows) > limit else None,
    )
