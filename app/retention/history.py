"""A memory's history as data (`GET /memories/{memory_id}/history`): when it was written and
embedded, each lifecycle action taken on it, each change retention made, oldest first."""

import uuid
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, JsonValue
from sqlalchemy.ext.asyncio import AsyncSession

from app.memories import service as memories
from app.memories.lifecycle import INITIAL_STATE
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


def _beginning(memory: MemoryRead) -> list[HistoryEvent]:
    provenance = memory.provenance
    # A decision written with its final outcome starts reviewed: its first state is not known.
    first = None if memory.kind == "decision" else INITIAL_STATE.get(memory.kind)
    events = [
        HistoryEvent(
            at=provenance.created_at, event="written", name=None, from_state=None,
            to_state=first, detail=None, changes=None,
        )
    ]  # fmt: skip
    if provenance.embedded_at is not None:
        events.append(
            HistoryEvent(
                at=provenance.embedded_at, event="embedded", name=None, from_state=None,
                to_state=None, detail=provenance.embedding_model, changes=None,
            )
        )  # fmt: skip
    return events


def _retention_event(change: RecordedChange) -> HistoryEvent:
    return HistoryEvent(
        at=change.created_at, event="retention", name=change.rule, from_state=change.from_state,
        to_state=change.to_state, detail=change.reason, changes=change.details,
        restored_at=change.restored_at,
    )  # fmt: skip


async def memory_history(
    session: AsyncSession, ctx: MemoryContext, tenant: Tenant, memory_id: uuid.UUID
) -> MemoryHistory:
    """The memory's history; 404 for another tenant's or an unknown memory, 410 once erased."""
    memory = await memories.read_memory(session, ctx, tenant, memory_id)
    transitions = await TransitionRepository(session).of(memory_id, HISTORY_MAX)
    changes = await retention.list_changes(
        session, tenant, memory.agent_id, memory_id, None, HISTORY_MAX
    )
    later = [
        HistoryEvent(
            at=t.at, event="action", name=t.action, from_state=t.from_state,
            to_state=t.to_state, detail=None, changes=t.changes,
        )
        for t in transitions
    ] + [_retention_event(change) for change in changes.items]  # fmt: skip
    return MemoryHistory(
        memory_id=memory.id,
        agent_id=memory.agent_id,
        kind=memory.kind,
        state=memory.state,
        events=_beginning(memory) + sorted(later, key=lambda event: event.at),
    )
