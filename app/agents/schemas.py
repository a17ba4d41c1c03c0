"""Request and response bodies of the agent API."""

from datetime import datetime
from typing import Annotated

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field

from app.core.context_config import MAX_FRESH_TAIL, MAX_SINKS
from app.core.cursor import MICROS_PATTERN
from app.core.fields import Label, Line, RequestBody, Text, WholeNumber
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


Fraction = Annotated[float, Field(ge=0, le=1)]
TokenCount = Annotated[int, Field(ge=0, le=10_000_000), WholeNumber]


class ContextWindow(RequestBody):
    """The whole prompt's tokens and their shares, named as seed 001 names them: the history
    gets what the reserves, the memory context and Past Learnings leave."""

    total: Annotated[int, Field(ge=1, le=10_000_000), WholeNumber] | None = Field(
        default=None,
        description="Tokens of the whole chat request; more than system_reserve + "
        "tools_reserve (each as the build resolves it), or the build is refused naming the "
        "field.",
    )
    system_reserve: TokenCount | None = Field(
        default=None, description="Kept for your system prompt around the context."
    )
    tools_reserve: TokenCount | None = Field(
        default=None, description="Kept for the tool definitions."
    )
    memory_fraction: Fraction | None = Field(
        default=None,
        description="Share of available (total less the reserves) for the memory layers.",
    )
    learnings_fraction: Fraction | None = Field(
        default=None,
        description="Share of available for Past Learnings: the lessons of reviewed decisions "
        "and the procedures relevant to the input, in a section of their own after the memory "
        "layers; what they leave goes to the history. Together with memory_fraction at most 1.",
    )
    fresh_tail: Annotated[int, Field(ge=0, le=MAX_FRESH_TAIL), WholeNumber] | None = Field(
        default=None, description="The last messages, kept verbatim whenever they fit."
    )
    sinks: Annotated[int, Field(ge=0, le=MAX_SINKS), WholeNumber] | None = Field(
        default=None, description="The first messages, kept whenever they fit."
    )


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
