"""Request and response bodies of the follow-ups of a build: refresh, expand and feedback."""

import uuid
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.context.schemas import GIVEN, ContextBuildResponse, InputText
from app.core.fields import Id, RequestBody, Text, WholeNumber


class ContextRefreshRequest(RequestBody):
    """The conversation moved on: does the context still fit?"""

    context_id: Id
    input: InputText
    decision_point: bool = Field(
        default=False, description="The agent is about to act: rebuild for the decision."
    )
    budget: Annotated[int, Field(ge=1, le=1_000_000), WholeNumber] | None = Field(
        default=None,
        description="The room left now; a context that no longer fits is rebuilt smaller. With "
        "a session, the memory layers' budget (the window is kept); the session's own messages "
        "count on their own: its history is read as it is now.",
    )


RefreshReason = Literal["frame_switch", "topic_drift", "decision_point", "token_pressure"]


class ContextDelta(BaseModel):
    added: list[uuid.UUID]
    removed: list[uuid.UUID]


class ContextRefreshResponse(BaseModel):
    refreshed: bool
    reasons: list[RefreshReason] = Field(
        description="`token_pressure`: the context is over the refresh's budget or, with a "
        "session, it, the messages the build returned and those appended since no longer fit "
        "the window's available tokens."
    )
    similarity: float | None = Field(description="Of the new input to the built context.")
    frame: str = Field(description="The frame the new input selects.")
    build: ContextBuildResponse | None
    delta: ContextDelta | None


class ContextExpandRequest(RequestBody):
    """A memory to open, and the context it was listed in."""

    memory_id: Id
    context_id: Id | None = None


class ContextFeedback(RequestBody):
    """Which memories of the context the LLM used: by id, or worked out from its reply."""

    model_config = ConfigDict(
        json_schema_extra={
            # What the validator says, for clients that read the schema: one of the two.
            "oneOf": [
                {"required": ["used_memory_ids"], "properties": {"used_memory_ids": GIVEN}},
                {"required": ["reply"], "properties": {"reply": GIVEN}},
            ],
        },
    )

    used_memory_ids: list[Id] | None = Field(
        default=None, max_length=1000, description="The memories of the context the LLM used."
    )
    reply: Annotated[Text, Field(max_length=200_000)] | None = Field(
        default=None,
        description="The LLM's reply: the service works out which memories it refers to.",
    )

    @model_validator(mode="after")
    def _one_of_the_two(self) -> "ContextFeedback":
        if (self.used_memory_ids is None) == (self.reply is None):
            raise ValueError(
                "give either used_memory_ids (the memories the LLM used) or reply (its reply, "
                "the service finds the memories it refers to), not both"
            )
        return self


class ContextFeedbackResponse(BaseModel):
    context_id: uuid.UUID
    referenced: list[uuid.UUID]
    included: int
    precision: float
