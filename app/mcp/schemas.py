"""What the MCP tools return: the parts of the API's answers a model acts on, kept short."""

import uuid

from pydantic import BaseModel, Field, JsonValue

from app.context.history.schemas import ChatMessageRead
from app.context.schemas import ContextBuildResponse
from app.context.text.schemas import ContextItem
from app.memories.schemas import MemoryPage, MemoryRead, WrittenMemory
from app.sessions.schemas import MessageBatchRead


class LoadedMemory(BaseModel):
    """A memory in a built context: its id (for expand_memory and feedback) and its score."""

    memory_id: uuid.UUID
    kind: str
    detail: str
    score: float


class BuiltContext(BaseModel):
    """A built context: the text for the system prompt, and the history to send after it."""

    context_id: uuid.UUID = Field(description="Give it to feedback and expand_memory.")
    context: str
    budget: int
    used: int
    frame: str
    memories: list[LoadedMemory]
    messages: list[ChatMessageRead] | None = None

    @classmethod
    def of(cls, build: ContextBuildResponse) -> "BuiltContext":
        """The short form of a build response."""
        return cls(
            context_id=build.context_id,
            context=build.context,
            budget=build.totals.budget,
            used=build.totals.used,
            frame=build.frame.name,
            memories=[_loaded(item) for layer in build.layers for item in layer.items],
            messages=build.messages,
        )


def _loaded(item: ContextItem) -> LoadedMemory:
    return LoadedMemory(
        memory_id=item.memory_id, kind=item.kind, detail=item.detail, score=item.score
    )


class FoundMemory(BaseModel):
    """A memory that matches a search, best first, with its summary."""

    memory_id: uuid.UUID
    kind: str
    state: str
    score: float
    summary: str


class SearchResult(BaseModel):
    query: str
    memories: list[FoundMemory]


class StoredMemory(BaseModel):
    """A memory as the service keeps it now: its id, state and summary."""

    memory_id: uuid.UUID
    kind: str
    state: str
    outcome: str | None
    summary: str
    written: str | None = Field(
        default=None,
        description="On a write: `created`, or `confirmed_existing` when an active fact says "
        "the same (that fact's id is memory_id).",
    )

    @classmethod
    def of(cls, memory: MemoryRead) -> "StoredMemory":
        """The short form of a memory record."""
        return cls(
            memory_id=memory.id,
            kind=memory.kind,
            state=memory.state,
            outcome=memory.outcome,
            summary=memory.representations.summary.text,
            written=memory.written if isinstance(memory, WrittenMemory) else None,
        )


class OpenedMemory(BaseModel):
    """A memory's full text and fields."""

    memory_id: uuid.UUID
    agent_id: str
    kind: str
    state: str
    text: str
    fields: dict[str, JsonValue]

    @classmethod
    def of(cls, memory: MemoryRead) -> "OpenedMemory":
        """The full representation of a memory record."""
        return cls(
            memory_id=memory.id,
            agent_id=memory.agent_id,
            kind=memory.kind,
            state=memory.state,
            text=memory.representations.full.text,
            fields=memory.fields,
        )


class MemoryList(BaseModel):
    """A page of memories, short; `next_cursor` as `cursor` gives the next page."""

    memories: list[StoredMemory]
    next_cursor: str | None

    @classmethod
    def of(cls, page: MemoryPage) -> "MemoryList":
        return cls(
            memories=[StoredMemory.of(memory) for memory in page.items],
            next_cursor=page.next_cursor,
        )


class ErasedMemory(BaseModel):
    """A memory erased: reading it now says so."""

    memory_id: uuid.UUID
    erased: bool = True


class AppendedMessage(BaseModel):
    seq: int
    role: str


class AppendedMessages(BaseModel):
    """The messages appended, with their place in the session, and the session's size now."""

    session_id: str
    messages: list[AppendedMessage]
    messages_in_session: int
    tokens_in_session: int

    @classmethod
    def of(cls, batch: MessageBatchRead) -> "AppendedMessages":
        return cls(
            session_id=batch.session.session_id,
            messages=[AppendedMessage(seq=m.seq, role=m.role) for m in batch.messages],
            messages_in_session=batch.session.messages,
            tokens_in_session=batch.session.tokens,
        )
