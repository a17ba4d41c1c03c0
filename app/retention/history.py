"""A memory's history as data (`GET /memories/{memory_id}/history`): when it was written and
embedded, each lifecycle action taken on it, each change retention made, oldest first."""

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, JsonValue
from sqlalchemy.ext.asyncio import AsyncSession

from app.memories import service as memories
from app.memories.lifecycle import INITIAL_STATE
from app.memories.models import MemoryTransition
from app.memories.schemas import MemoryRead
from app.memories.service import MemoryContext
from app.memories.transition_repository import TransitionRepository
from app.retention import service as retention
from app.retention.schemas import RecordedChange
from app.tenants.models import Tenant

# Actions and retention changes a history shows at most, each the latest.
HISTORY_MAX = 200


class HistoryEvent(BaseModel):
    """One thing that happened to a memory."""

    at: datetime
    event: Literal["written", "embedded", "action", "retention"]
    name: str | None = Field(
        description="The lifecycle action (`record_outcome`, `confirm`, …) or retention's rule "
        "(`episode_archived`, `forgotten`, …); none for written and embedded."
    )
    from_state: str | None
    to_state: str | None
    detail: str | None = Field(
        description="The embedding model; retention's reason in words; none for an action."
    )
    changes: dict[str, JsonValue] | None = Field(
        description="What an action changed besides the state (an outcome and its notes: "
        "`{from, to}`); retention's numbers."
    )
    restored_at: datetime | None = Field(
        default=None, description="When a retention change was undone (`restore`)."
    )


class MemoryHistory(BaseModel):
    """A memory's history, oldest first, and where it stands now."""

    memory_id: uuid.UUID
    agent_id: str
    kind: str
    state: str
    events: list[HistoryEvent]


def _written(memory: MemoryRead) -> HistoryEvent:
    # A decision written with its final outcome starts reviewed: its first state is not known.
    first = None if memory.kind == "decision" else INITIAL_STATE.get(memory.kind)
    return HistoryEvent(
        at=memory.provenance.created_at, event="written", name=None, from_state=None,
        to_state=first, detail=None, changes=None,
    )  # fmt: skip


def memory_events(
    memory: MemoryRead,
    transitions: Sequence[MemoryTransition],
    changes: Sequence[RecordedChange],
) -> list[HistoryEvent]:
    """Written first, then the rest oldest first: embedded (last time), each action, each
    change retention made. Pure."""
    provenance = memory.provenance
    later = [
        HistoryEvent(
            at=t.at, event="action", name=t.action, from_state=t.from_state,
            to_state=t.to_state, detail=None, changes=t.changes,
        )
        for t in transitions
    ] + [
        HistoryEvent(
            at=c.created_at, event="retention", name=c.rule, from_state=c.from_state,
            to_state=c.to_state, detail=c.reason, changes=c.details, restored_at=c.restored_at,
        )
        for c in changes
    ]  # fmt: skip
    if provenance.embedded_at is not None:
        later.append(
            HistoryEvent(
                at=provenance.embedded_at, event="embedded", name=None, from_state=None,
                to_state=None, detail=provenance.embedding_model, changes=None,
            )
        )  # fmt: skip
    return [_written(memory), *sorted(later, key=lambda event: event.at)]


async def events_of(
    session: AsyncSession, tenant: Tenant, memory: MemoryRead, limit: int
) -> list[HistoryEvent]:
    """The memory's events, of its latest `limit` actions and retention changes."""
    transitions = await TransitionRepository(session).of(memory.id, limit)
    changes = await retention.list_changes(session, tenant, memory.agent_id, memory.id, None, limit)
    return memory_events(memory, transitions, changes.items)


async def memory_history(
    session: AsyncSession, ctx: MemoryContext, tenant: Tenant, memory_id: uuid.UUID
) -> MemoryHistory:
    """The memory's history; 404 for another tenant's or an unknown memory, 410 once erased."""
    memory = await memories.read_memory(session, ctx, tenant, memory_id)
    return MemoryHistory(
        memory_id=memory.id,
        agent_id=memory.agent_id,
        kind=memory.kind,
        state=memory.state,
        events=await events_of(session, tenant, memory, HISTORY_MAX),
    )
