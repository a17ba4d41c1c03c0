"""Request and response bodies of retention: runs, their changes, restores."""

import uuid
from datetime import datetime
from typing import Annotated

from fastapi.openapi.models import Example
from pydantic import BaseModel, Field, JsonValue

from app.core.fields import RequestBody, Timestamp, WholeNumber
from app.memories.schemas import Kind, State
from app.retention.types import Rule


class RetentionRun(RequestBody):
    """Run retention for one agent now, or as of a given time; a dry run changes nothing."""

    now: Timestamp | None = Field(
        default=None,
        description="The time to run as of (RFC 3339, with its offset); default: now. Ages "
        "and idle times count back from it.",
    )
    dry_run: bool = Field(default=False, description="Answer what would change; change nothing.")


class RetentionChangeRead(BaseModel):
    """One change to one memory and why."""

    memory_id: uuid.UUID
    kind: Kind
    rule: Rule = Field(
        description="`episode_summarized`, `episode_archived` (by age); `procedure_failing`, "
        "`procedure_unused`, `censor_idle` (by their counters; they retire); `fact_stale`, "
        "`fact_fresh` (a fact's rank factor, no state change); `forgotten` (coordinated "
        "forgetting: past the agent's size limit, least salient first; restorable)."
    )
    from_state: State
    to_state: State
    reason: str = Field(description="Why, in words.")
    details: dict[str, JsonValue] = Field(
        description="Why, in numbers: ages and thresholds; for `forgotten`, the salience, its "
        "parts, the limits and what was in play."
    )
    rank_factor: float | None = Field(
        default=None, description="A fact's new rank factor (its share of its score in builds)."
    )


class RecordedChange(RetentionChangeRead):
    """A change as stored: when, as of when, and whether it was undone."""

    change_id: int
    as_of: datetime = Field(description="The `now` of the run that made it.")
    created_at: datetime
    restored_at: datetime | None = None


class MemoryPressure(BaseModel):
    """The agent's memories and full-text tokens in play (not forgotten, retired, invalid or
    superseded) after the run, and the limits (0: none)."""

    memories: int
    tokens: int
    max_memories: int
    max_tokens: int


class RetentionRunRead(BaseModel):
    """What a run changed (or, dry, would change), per memory, with the reason."""

    agent_id: str
    now: datetime
    dry_run: bool
    changes: list[RetentionChangeRead]
    pressure: MemoryPressure


class RetentionChangePage(BaseModel):
    """Recorded changes, newest first."""

    items: list[RecordedChange]
    next_cursor: int | None = Field(
        default=None, description="Pass as `cursor` for the changes before these."
    )


class MemoryRestored(BaseModel):
    """A forgotten memory back in the state it was forgotten from, and the change undone."""

    memory_id: uuid.UUID
    kind: Kind
    state: State
    undone: RecordedChange


class RetentionLimits(RequestBody):
    """The agent's own size limits for coordinated forgetting; null: the setting's."""

    max_active_memories: Annotated[int, Field(ge=0, le=10**9), WholeNumber] | None = Field(
        default=None, description="Memories in play at most; 0: no limit."
    )
    max_active_tokens: Annotated[int, Field(ge=0, le=10**15), WholeNumber] | None = Field(
        default=None,
        description="Full-text tokens (default encoding) in play at most; 0: no limit.",
    )


class RetentionLimitsRead(BaseModel):
    """The limits in force for the agent, and which of them are its own."""

    agent_id: str
    max_active_memories: int
    max_active_tokens: int
    own: RetentionLimits = Field(description="The agent's own limits; null: the setting's.")


RUN_EXAMPLES: dict[str, Example] = {
    "now": Example(summary="Run now", value={}),
    "as_of": Example(
        summary="What a run on a given day would change",
        value={"now": "2027-03-01T00:00:00Z", "dry_run": True},
    ),
}
