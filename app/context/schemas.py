"""Request and response bodies of the context API (the manifest's parts: `text/schemas.py`)."""

import uuid
from datetime import datetime
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ValidationInfo,
    field_validator,
)

from app.agents.schemas import ContextWindow
from app.context.history.schemas import ChatMessageRead, HistoryRead
from app.context.text.schemas import (
    ErasedRead,
    FrameRead,
    GateRead,
    InputEmbeddingRead,
    LayerRead,
    LeftOut,
    LeftOutCounts,
    PremiseRead,
    Totals,
)
from app.context.types import FlexibleKind
from app.core.fields import JsonObject, RequestBody, Text, Timestamp, WholeNumber
from app.providers.tokenizer import TargetModel
from app.sessions.schemas import SESSION_NAME_PATTERN

FrameName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$")]
AgentRef = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$")]
InputText = Annotated[Text, Field(min_length=1, max_length=50_000)]
SessionId = Annotated[str, Field(pattern=SESSION_NAME_PATTERN)]
ManifestDetail = Literal["full", "compact"]
GIVEN: dict[str, JsonValue] = {"not": {"type": "null"}}
# Validation context of a stored build's request: a refresh's rebuild keeps the original window
# and may add the refresh's budget (the memory layers' then), which a request may not give both.
STORED_REQUEST = {"stored": True}
_BOTH_GIVEN: dict[str, JsonValue] = {"budget": GIVEN, "window": GIVEN}


class ContextBuildRequest(RequestBody):
    """What the agent is about to answer, and the limits of the context for it."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "agent_id": "newton",
                    "input": "Should we use Redis for caching in Newton?",
                    "budget": 2000,
                    "model": "gpt-4o",
                },
                {
                    "agent_id": "newton",
                    "input": "And what did we decide about the cache?",
                    "model": "gpt-4o",
                    "session_id": "chat-1",
                    "window": {"total": 8000, "fresh_tail": 8},
                },
            ],
            # What the validator of `window` says, for clients that read the schema.
            "allOf": [
                {"not": {"required": ["budget", "window"], "properties": _BOTH_GIVEN}},
                {
                    "anyOf": [
                        {"not": {"required": ["window"], "properties": {"window": GIVEN}}},
                        {"required": ["session_id"], "properties": {"session_id": GIVEN}},
                    ]
                },
            ],
        },
    )

    agent_id: AgentRef
    input: InputText
    frame: FrameName | None = Field(
        default=None, description="Use this frame instead of selecting one from the input."
    )
    budget: Annotated[int, Field(ge=1, le=1_000_000), WholeNumber] | None = Field(
        default=None, description="Hard token limit; else the frame's budget, else the agent's."
    )
    model: TargetModel | None = Field(
        default=None, description="Target model: its tokenizer counts the budget."
    )
    now: Timestamp | None = Field(
        default=None, description="Reference time for recency; defaults to the server clock."
    )
    kinds: list[FlexibleKind] | None = Field(
        default=None, description="Only these kinds of memory in the relevant layers."
    )
    metadata: JsonObject | None = Field(
        default=None, description="Only memories whose metadata contains this JSON object."
    )
    session_id: SessionId | None = Field(
        default=None,
        description="The session whose history comes with the context, as `messages`, within "
        "the window; a session without messages yet gives none.",
    )
    window: ContextWindow | None = Field(
        default=None,
        description="With `session_id` only, and instead of `budget`: the whole prompt's "
        "tokens and their shares; each field defaults to the agent's default_window, then to "
        "its CE_CONTEXT__WINDOW__ setting.",
    )
    manifest: ManifestDetail = Field(
        default="full",
        description="`compact` for clients that do not read the manifest: items without "
        "their score components, the candidates left out as counts only (`left_out_counts`); "
        "a smaller answer, built and sent faster, and stored as it was returned.",
    )

    @field_validator("window")
    @classmethod
    def _window_needs_a_session(
        cls, window: "ContextWindow | None", info: ValidationInfo
    ) -> "ContextWindow | None":
        if window is None:
            return window
        if info.data.get("session_id") is None:
            raise ValueError("a window is the budget of a session's history: give session_id")
        if info.data.get("budget") is not None and info.context != STORED_REQUEST:
            raise ValueError(
                "give budget or window, not both: window (with its memory_fraction) when the "
                "history comes too, budget for the context alone"
            )
        return window


class ContextBuildResponse(BaseModel):
    """The context to put in the system prompt, and the manifest that explains it."""

    context_id: uuid.UUID
    agent_id: str
    context: str
    frame: FrameRead
    layers: list[LayerRead]
    left_out: list[LeftOut] = Field(
        description="The best candidates that did not make it (50 memories and 50 "
        "constraints at most); empty in a compact manifest."
    )
    left_out_counts: LeftOutCounts | None = Field(
        default=None, description="Absent from builds stored by versions that did not count."
    )
    manifest: ManifestDetail = Field(
        default="full", description="As requested: `compact` leaves out the score details."
    )
    totals: Totals
    relevance: float | None = Field(description="Mean similarity of the loaded memories.")
    gate: GateRead | None = Field(
        default=None, description="Absent from builds stored by versions that did not say."
    )
    input_embedding: InputEmbeddingRead | None = Field(
        default=None, description="Absent from builds stored by versions that did not say."
    )
    messages: list[ChatMessageRead] | None = Field(
        default=None,
        description="With session_id: the session's history to send after the system prompt, "
        "in the OpenAI chat format; null without.",
    )
    history: HistoryRead | None = Field(
        default=None, description="With session_id: which messages were kept; null without."
    )
    premises: list[PremiseRead] = Field(
        default_factory=list,
        description="What the input takes for granted that the agent's memory does not bear "
        "out (no LLM: found by rules, checked against the memories the search found).",
    )
    timings_ms: dict[str, float]
    created_at: datetime
    parent_id: uuid.UUID | None = None
    erased: list[ErasedRead] = Field(
        default_factory=list,
        description="In a stored build: the memories it named that were erased since. Their "
        "ids, scores and token counts stay; their lines in `context` read `- [erased]`.",
    )


class ContextBuildSummary(BaseModel):
    """A stored build in a list: what was asked, its frame, tokens and the feedback on it."""

    context_id: uuid.UUID
    parent_id: uuid.UUID | None = Field(description="The build a refresh rebuilt.")
    input: str
    frame: str
    budget: int
    used: int
    relevance: float | None
    precision: float | None = Field(description="Of the feedback; null before any.")
    created_at: datetime


class ContextBuildList(BaseModel):
    """An agent's latest builds, newest first; GET /context/{context_id} reads one whole, and
    `next_cursor` as `cursor` gives the next page."""

    items: list[ContextBuildSummary]
    next_cursor: str | None = None
