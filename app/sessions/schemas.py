"""Request and response bodies of the session API: messages in the OpenAI chat format."""

import uuid
from datetime import datetime
from typing import Annotated, Literal

from fastapi import Path
from pydantic import BaseModel, Field

from app.core.cursor import MICROS_PATTERN
from app.core.fields import Label, LongText, RequestBody, Timestamp

Role = Literal["user", "assistant", "system", "tool"]
SESSION_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$"
SESSION_CURSOR_PATTERN = rf"^{MICROS_PATTERN}_{SESSION_NAME_PATTERN[1:]}"
SessionName = Annotated[
    str,
    Path(
        pattern=SESSION_NAME_PATTERN,
        description="Your id for the conversation: letters, digits and . _ : - (up to 200). "
        "Its first message creates the session.",
        examples=["chat-2026-11-23"],
    ),
]
# What OpenAI's chat API accepts as a participant's name, so a session's messages can be sent
# to it as they are.
ParticipantName = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z0-9_-]{1,64}$",
        description="Who spoke, to tell participants of the same role apart: letters, digits, "
        "_ and - (up to 64), as the OpenAI chat format allows.",
    ),
]


class _MessageCreateBase(RequestBody):
    content: LongText
    created_at: Timestamp | None = Field(
        default=None, description="When it was said; defaults to the time of the append."
    )


class ChatMessageCreate(_MessageCreateBase):
    """A message of the system prompt, the user or the assistant."""

    role: Literal["user", "assistant", "system"]
    name: ParticipantName | None = None


class ToolMessageCreate(_MessageCreateBase):
    """A tool's result, answering the assistant's tool call `tool_call_id`."""

    role: Literal["tool"]
    tool_call_id: Label


MessageCreate = Annotated[ChatMessageCreate | ToolMessageCreate, Field(discriminator="role")]


class MessageBatchCreate(RequestBody):
    """Messages appended in order to a session: all are stored or none."""

    messages: list[MessageCreate] = Field(min_length=1)


class MessageRead(BaseModel):
    """A stored message and its place in the conversation."""

    id: uuid.UUID
    seq: int = Field(description="Its position in the session: 0, 1, 2, … in appending order.")
    role: Role
    content: str
    name: str | None
    tool_call_id: str | None
    created_at: datetime
    tokens: int = Field(description="Tokens of `content` in the default encoding.")


class SessionSummaryRead(BaseModel):
    """A summary standing for a span of older messages (summaries of summaries at depth > 1)."""

    depth: int = Field(description="1: of messages; d + 1: of depth-d summaries.")
    first_seq: int
    last_seq: int
    messages: int = Field(description="How many messages it covers.")
    start: datetime = Field(description="When the first message it covers was said.")
    end: datetime = Field(description="When the last message it covers was said.")
    tokens: int = Field(description="Tokens of its text in the default encoding.")
    method: Literal["extractive", "llm"]


class SessionRead(BaseModel):
    """A session: its counts, tokens and summaries."""

    session_id: str
    agent_id: str
    created_at: datetime
    updated_at: datetime = Field(description="The time of the last append.")
    messages: int = Field(description="Messages in the session.")
    tokens: int = Field(description="Tokens of all its messages' contents, default encoding.")
    first_message_at: datetime | None = Field(
        description="`created_at` of the first message (seq 0); null while the session has "
        "none (one opened by an effort)."
    )
    last_message_at: datetime | None = Field(
        description="`created_at` of the last message; null while the session has none."
    )
    summaries: list[SessionSummaryRead] = Field(
        description="Summaries of older messages, computed in the background: coarsest "
        "first, then in conversation order."
    )


class SessionPage(BaseModel):
    """One page of an agent's sessions, newest first; pass `next_cursor` as `cursor` for the
    next."""

    items: list[SessionRead]
    next_cursor: str | None = Field(
        description="`<microseconds since 1970 UTC>_<session_id>` of the page's last session; "
        "null on the last page."
    )


class MessageBatchRead(BaseModel):
    """The messages as stored, and the session after the append."""

    session: SessionRead
    messages: list[MessageRead]


class MessagePage(BaseModel):
    """One page of a session's messages, oldest first; pass `next_cursor` as `cursor` for
    the next."""

    items: list[MessageRead]
    next_cursor: int | None
