"""Request and response bodies of efforts, and their part of a build's manifest."""

from datetime import datetime
from typing import Annotated, Literal

from fastapi import Path
from pydantic import BaseModel, Field

from app.core.fields import Label, RequestBody, Text
from app.sessions.schemas import MessageRead

EffortState = Literal["open", "concluded", "expanded"]
SummaryMethod = Literal["extractive", "llm"]
EFFORT_ID_PATTERN = r"^e_[1-9][0-9]{0,8}$"
EffortName = Annotated[
    str,
    Path(
        pattern=EFFORT_ID_PATTERN,
        description="The effort's id in its session, as opening it answered: `e_1`, `e_2`, …",
        examples=["e_3"],
    ),
]


class EffortCreate(RequestBody):
    """An effort to open: the messages appended to the session from now on belong to it."""

    title: Label = Field(description="What the effort is about, in a few words.")
    goal: Annotated[Text, Field(min_length=1, max_length=2000)] | None = Field(
        default=None, description="What it should achieve; its words help find it later."
    )


class EffortRead(BaseModel):
    """An effort of a session, and how it stands in working memory."""

    effort_id: str = Field(description="`e_{n}`: its id in the session, in URLs and in context.")
    title: str
    goal: str | None
    state: EffortState = Field(
        description="open: its messages are raw in context; concluded: its summary only; "
        "expanded: raw again until it goes CE_CONTEXT__EFFORTS__EXPANDED_DECAY_TURNS turns "
        "without a reference."
    )
    summary: str | None = Field(
        description="Made in the background once concluded; null until then."
    )
    summary_method: SummaryMethod | None
    messages: int = Field(description="Messages appended while it was open.")
    tokens: int = Field(description="Their tokens, default encoding.")
    opened_turn: int = Field(description="The session's turn (user messages) when opened.")
    concluded_turn: int | None
    expanded_turn: int | None
    last_referenced_turn: int = Field(
        description="The last turn that opened, concluded, expanded or referred to it."
    )
    in_working_memory: bool = Field(
        description="Whether a build now shows it (raw or by its summary); an evicted one is "
        "still searchable and expandable."
    )
    created_at: datetime
    concluded_at: datetime | None


class EffortList(BaseModel):
    """A session's efforts, oldest first, at the session's current turn."""

    session_id: str
    turn: int = Field(description="The session's turn: the user messages appended to it.")
    items: list[EffortRead]


class EffortExpanded(BaseModel):
    """An expanded effort and its raw messages, back in working memory."""

    effort: EffortRead
    messages: list[MessageRead]


class EffortFound(BaseModel):
    """An effort the search found: by its words (title, goal, summary), by its messages'
    meaning, or both."""

    effort: EffortRead
    score: float = Field(
        description="1 when the query names it, plus 1/(60 + rank) for each way it was found."
    )
    by: Literal["words", "meaning", "both"]
    similarity: float | None = Field(
        description="Its closest message's cosine similarity to the query; null when found by "
        "its words alone."
    )


class EffortSearchResult(BaseModel):
    """The session's efforts whose title, goal or summary hold the query's words, best first."""

    query: str
    items: list[EffortFound]


class EffortUsed(BaseModel):
    """How a build showed one effort of its session."""

    effort_id: str
    title: str
    state: EffortState
    shown: Literal["raw", "summary", "evicted", "dropped"] = Field(
        description="raw: its messages are in `messages` (as many as fit: messages_kept); "
        "summary: its line under `## Efforts` in `context`; evicted: not referenced for "
        "CE_CONTEXT__EFFORTS__SUMMARY_EVICTION_TURNS turns; dropped: its summary did not fit."
    )
    messages_kept: int
    last_referenced_turn: int


class EffortsUsed(BaseModel):
    """With a session that has efforts: its working memory in place of the whole history."""

    turn: int = Field(description="The session's turn: the user messages appended to it.")
    tokens: int = Field(
        description="What `## Efforts` and `## Memory` added to `context` (in the promise)."
    )
    memory_note: bool = Field(
        description="Whether `## Memory` says that older efforts exist and how to find them."
    )
    ambient_window: int
    ambient_from_seq: int = Field(
        description="Messages outside efforts are in working memory from this seq on."
    )
    efforts: list[EffortUsed]
