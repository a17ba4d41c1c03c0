"""Request and response bodies of the memory API."""

import uuid
from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field, JsonValue, ValidationInfo, field_validator

from app.core.fields import JsonObject, Label, LongText, RequestBody, Text, Timestamp
from app.core.fields import Line as ShortText

Kind = Literal["decision", "fact", "procedure", "episode", "censor"]
State = Literal[
    "recorded",
    "pending",
    "reviewed",  # decision
    "new",
    "confirmed",
    "core",
    "superseded",
    "inactive",  # fact
    "active",
    "effective",
    "ineffective",
    "retired",  # procedure (and censor: retired)
    "summarized",
    "archived",  # episode (starts active)
    "created",
    "escalated",  # censor (then active, retired)
    "forgotten",  # a fact, procedure or episode retention deactivated (restorable)
]
Outcome = Literal["pending", "success", "partial", "failure"]
Confidence = Annotated[float, Field(ge=0.0, le=1.0)]
Domain = Annotated[Text, Field(max_length=100)]
Metadata = Annotated[
    JsonObject,
    Field(max_length=50, description="Free-form JSON, filterable with `metadata=` on the list."),
]


class _MemoryCreateBase(RequestBody):
    source: Label | None = Field(
        default=None, description="Where the memory came from (a tool, a user, a document)."
    )
    metadata: Metadata = Field(default_factory=dict)
    occurred_at: Timestamp | None = Field(
        default=None,
        description="When it happened; an episode's defaults to its started_at, else its "
        "ended_at; else the time of writing.",
    )


class DecisionCreate(_MemoryCreateBase):
    """A decision: what was chosen, why, against what, and how sure."""

    kind: Literal["decision"]
    decision: ShortText
    reasons: list[ShortText] = Field(default_factory=list, max_length=50)
    alternatives: list[ShortText] = Field(default_factory=list, max_length=50)
    context: LongText | None = None
    confidence: Confidence = 0.5
    outcome: Outcome = "pending"
    outcome_notes: LongText | None = None


class FactCreate(_MemoryCreateBase):
    """Something known, with how much it is trusted."""

    kind: Literal["fact"]
    content: LongText
    confidence: Confidence = 0.8


class ProcedureCreate(_MemoryCreateBase):
    """How to do something: steps and the core patterns worth loading."""

    kind: Literal["procedure"]
    name: ShortText
    description: LongText
    steps: list[ShortText] = Field(default_factory=list, max_length=100)
    core_patterns: list[ShortText] = Field(default_factory=list, max_length=50)
    domain: Domain | None = None


class EpisodeCreate(_MemoryCreateBase):
    """Something that happened: a conversation, an incident, a session of work."""

    kind: Literal["episode"]
    title: ShortText | None = None
    summary: LongText | None = Field(
        default=None, description="Your own summary; computed in the background when omitted."
    )
    detail: LongText
    started_at: Timestamp | None = None
    ended_at: Timestamp | None = Field(
        default=None, description="When it ended, as given; not before `started_at`."
    )
    participants: list[Label] = Field(default_factory=list, max_length=100)

    @field_validator("ended_at")
    @classmethod
    def _ends_after_it_starts(cls, ended: datetime | None, info: ValidationInfo) -> datetime | None:
        started = info.data.get("started_at")
        if ended is not None and started is not None and ended < started:
            raise ValueError(
                f"the episode ends ({ended.isoformat()}) before it starts "
                f"({started.isoformat()}): swap the two, or leave ended_at out"
            )
        return ended


class CensorCreate(_MemoryCreateBase):
    """Something not to do: a trigger pattern, why, and whether to warn or block."""

    kind: Literal["censor"]
    trigger_pattern: ShortText
    reason: ShortText
    action: Literal["warn", "block"] = "warn"
    domain: Domain | None = None


MemoryCreate = Annotated[
    DecisionCreate | FactCreate | ProcedureCreate | EpisodeCreate | CensorCreate,
    Field(discriminator="kind"),
]


class MemoryBatchCreate(RequestBody):
    """Several memories written together: all are stored or none."""

    memories: list[MemoryCreate] = Field(min_length=1)


class Representation(BaseModel):
    """One detail level of a memory and its size in tokens."""

    text: str
    tokens: int = Field(description="Tokens in the default encoding.")
    tokens_by_encoding: dict[str, int]


class SummaryRepresentation(Representation):
    source: Literal["template", "extractive", "llm", "author"] = Field(
        description="Who wrote the summary: a template, the extractive summarizer, the LLM, or you."
    )


class Representations(BaseModel):
    micro: Representation
    summary: SummaryRepresentation
    full: Representation


class JobRead(BaseModel):
    """Background work on the memory and how it went."""

    task: Literal["embed", "rescore", "summarize"]
    state: Literal["queued", "running", "done", "failed"]
    attempts: int
    last_error: str | None
    updated_at: datetime


class Provenance(BaseModel):
    source: str | None
    created_at: datetime
    updated_at: datetime
    occurred_at: datetime
    embedding_model: str | None
    embedded_at: datetime | None
    rescore_model: str | None = Field(
        default=None,
        description="The rescoring model whose vector of the memory builds rescore it with "
        "(CE_EMBEDDINGS__RESCORE_MODEL); none until the worker has computed it.",
    )
    jobs: list[JobRead]


class MemoryRead(BaseModel):
    """A memory: its fields, three representations with token counts, state and provenance."""

    id: uuid.UUID
    agent_id: str
    kind: Kind
    state: str
    fields: dict[str, JsonValue]
    metadata: dict[str, JsonValue]
    confidence: float | None
    outcome: Outcome | None
    superseded_by: uuid.UUID | None
    reference_count: int
    last_referenced_at: datetime | None
    representations: Representations
    provenance: Provenance


class WrittenMemory(MemoryRead):
    """A memory as written: stored anew, or an active fact that the written one repeats."""

    written: Literal["created", "confirmed_existing"] = Field(
        default="created",
        description="`confirmed_existing`: the fact says again what an active fact of the "
        "agent says; that fact was confirmed (its id is this one) and no copy was stored.",
    )


class MemoryBatchRead(BaseModel):
    memories: list[WrittenMemory]


class MemoryPage(BaseModel):
    """One page of memories, newest first; pass `next_cursor` as `cursor` for the next."""

    items: list[MemoryRead]
    next_cursor: str | None


# Updates: one action per request, each valid for some kinds and some states.
