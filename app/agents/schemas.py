"""Request and response bodies of the agent API."""

from datetime import datetime
from typing import Annotated, Literal

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field

from app.context.history_schemas import ContextWindow
from app.core.cursor import MICROS_PATTERN
from app.core.fields import Label, Line, NotBlankText, RequestBody, Text, WholeNumber
from app.providers.tokenizer import TargetModel

AGENT_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"
AGENT_CURSOR_PATTERN = rf"^{MICROS_PATTERN}_{AGENT_NAME_PATTERN[1:]}"
AgentName = Annotated[
    str,
    Path(
        pattern=AGENT_NAME_PATTERN,
        description="Your id for the agent: letters, digits and . _ : - (up to 64).",
        examples=["support-bot"],
    ),
]


class Identity(RequestBody):
    """Who the agent is; always at the top of its context."""

    name: Label
    description: Annotated[Text, Field(max_length=4000)] | None = None
    traits: list[Label] = Field(default_factory=list, max_length=50)
    core_rules: list[Line] = Field(default_factory=list, max_length=50)


class WorkingMemory(RequestBody):
    """What the agent is doing now; always in its context."""

    current_task: Annotated[Text, Field(max_length=4000)] | None = None
    open_threads: list[Line] = Field(default_factory=list, max_length=50)


class AgentUpsert(RequestBody):
    """An agent's identity and context defaults."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "identity": {
                        "name": "Newton",
                        "traits": ["analytical", "cautious"],
                        "core_rules": ["Record decisions before acting."],
                    },
                    "default_budget": 8000,
                    "model": "gpt-4o",
                    "default_window": {"total": 128000, "memory_fraction": 0.1},
                }
            ]
        },
    )

    identity: Identity
    default_budget: Annotated[int, Field(ge=100, le=1_000_000), WholeNumber] | None = Field(
        default=None, description="Token budget of a context when the request names none."
    )
    model: TargetModel | None = Field(
        default=None, description="Target model; picks the tokenizer that counts the budget."
    )
    default_window: ContextWindow | None = Field(
        default=None,
        description="Window defaults of the agent's builds with a session, any of the fields: "
        "a field of the request's window wins, then this, then its CE_CONTEXT__WINDOW__ "
        "setting. Each field is checked here; the whole window when a build resolves it: a "
        "build whose window these defaults leave without a token, or with fractions over 1, "
        "answers 409 naming the field.",
    )


class AgentRead(BaseModel):
    agent_id: str
    identity: Identity
    working_memory: WorkingMemory
    default_budget: int | None
    model: str | None
    default_window: ContextWindow | None = Field(
        description="The window fields the agent's builds with a session default to; null "
        "fields (or none at all) come from the settings."
    )
    created_at: datetime
    updated_at: datetime


class AgentPage(BaseModel):
    """One page of the tenant's agents, newest first; pass `next_cursor` as `cursor` for the
    next."""

    items: list[AgentRead]
    next_cursor: str | None = Field(
        description="`<microseconds since 1970 UTC>_<agent_id>` of the page's last agent; null "
        "on the last page."
    )


FrameNameParam = Annotated[
    str,
    Path(
        pattern=r"^[a-z][a-z0-9_-]{0,63}$",
        description="Frame name, e.g. `incident`.",
        examples=["incident"],
    ),
]
Weight = Annotated[float, Field(ge=0.0, le=1.0)]
KindName = Literal["decision", "fact", "procedure", "episode"]


class FrameDefinition(RequestBody):
    """An agent's own frame, or its changes to a built-in one; omitted fields are inherited."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "description": "Production incident: restore service, then find the cause.",
                    "questions": ["What changed last?", "Who is affected?"],
                    "priorities": {"procedure": 1.0, "episode": 0.9, "fact": 0.6, "decision": 0.4},
                    "default_budget": 6000,
                    "examples": ["The API is down", "Latency spiked after the deploy"],
                    "cues": ["outage", "incident", "down"],
                }
            ]
        },
    )

    description: Annotated[NotBlankText, Field(max_length=2000)] | None = None
    questions: list[Line] | None = Field(default=None, max_length=20)
    priorities: dict[KindName, Weight] | None = None
    default_budget: Annotated[int, Field(ge=1, le=1_000_000), WholeNumber] | None = None
    examples: list[Line] | None = Field(default=None, max_length=50)
    cues: list[Label] | None = Field(default=None, max_length=50)
    recency: Weight | None = Field(
        default=None, description="How much newer memories matter (scales the recency weight)."
    )


class FrameView(BaseModel):
    """A frame as the agent's contexts use it."""

    name: str
    description: str
    questions: list[str]
    priorities: dict[str, float]
    default_budget: int
    examples: list[str]
    cues: list[str]
    recency: float
    builtin: bool
    customized: bool
