"""Conversation sessions of an agent and their messages, in conversation order."""

import uuid
from datetime import datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Computed,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, TSVECTOR
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base
from app.core.vector import Embedding, VectorType

ROLES = ("user", "assistant", "system", "tool")


class ConversationSession(Base):
    """A conversation of an agent; `name` is the client's session id, used in URLs.

    Its row is locked by every append, so the messages' sequence numbers follow each other."""

    __tablename__ = "conversation_session"
    __mapper_args__ = {"eager_defaults": True}  # noqa: RUF012 - SQLAlchemy's declaration
    __table_args__ = (
        UniqueConstraint("agent_id", "name"),
        # The list of an agent's sessions, newest first, page by page.
        Index("ix_conversation_session_agent_created", "agent_id", "created_at", "name"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenant.id"))
    agent_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("agent.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    # The time of the last append.
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    message_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    token_count: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    # Its turns: the user messages appended to it (efforts age by them, `app.efforts`).
    turns: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class SessionMessage(Base):
    """One message of a session, numbered from 0 in the order it was appended."""

    __tablename__ = "session_message"
    __table_args__ = (
        UniqueConstraint("session_id", "seq"),
        CheckConstraint(f"role IN {ROLES!r}", name="role"),
        # As in the OpenAI chat format: a tool's answer names its call, and only it does.
        CheckConstraint("(role = 'tool') = (tool_call_id IS NOT NULL)", name="tool_call_id"),
        # GIN over (session, words) through btree_gin: recall reads only the session's rows.
        Index(
            "ix_session_message_effort_id",
            "effort_id",
            postgresql_where=text("effort_id IS NOT NULL"),
        ),
        Index(
            "ix_session_message_session_words",
            "session_id",
            "words",
            postgresql_using="gin",
            postgresql_with={"fastupdate": "off"},
        ),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    session_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("conversation_session.id", ondelete="CASCADE")
    )
    seq: Mapped[int] = mapped_column(Integer)
    role: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text)
    name: Mapped[str | None] = mapped_column(String(64))
    tool_call_id: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    tokens: Mapped[int] = mapped_column(Integer)
    # The effort that was open when it was appended (`app.efforts`); NULL: ambient.
    effort_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("session_effort.id", ondelete="SET NULL")
    )
    # Its words as PostgreSQL stems them, as a memory's `search_document`: recall searches them.
    words: Mapped[str] = mapped_column(
        TSVECTOR, Computed("to_tsvector('english'::regconfig, content)", persisted=True)
    )
    # Its content's vector, in the memories' embedding space (the recorded model, the same
    # dimension): computed in the background (`app.sessions.vectors`), NULL until then and after
    # a change of model; recall compares it with the input's by an exact scan of the session's
    # evicted rows (about 5 ms for 5,000 messages), so it needs no vector index.
    embedding: Mapped[Embedding | None] = mapped_column(VectorType())
    # Why the provider refused to embed it, alone: it is found by its words only, and the
    # background job does not ask again.
    embedding_refused: Mapped[str | None] = mapped_column(Text)


class SessionSummary(Base):
    """A summary of the session's messages `first_seq` to `last_seq`: of the messages at depth
    1, of `fanout` consecutive summaries of depth d at depth d + 1 (`app.sessions.spans`); at
    depth 0, of one long assistant or tool message, shown in its place under pressure."""

    __tablename__ = "session_summary"
    __table_args__ = (
        # Made at most once per place: workers racing on a session insert it once.
        UniqueConstraint("session_id", "depth", "first_seq"),
        CheckConstraint("method IN ('extractive', 'llm')", name="method"),
        CheckConstraint("depth >= 0 AND first_seq <= last_seq", name="span"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    session_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("conversation_session.id", ondelete="CASCADE")
    )
    depth: Mapped[int] = mapped_column(Integer)
    first_seq: Mapped[int] = mapped_column(Integer)
    last_seq: Mapped[int] = mapped_column(Integer)
    message_count: Mapped[int] = mapped_column(Integer)
    first_message_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_message_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    content: Mapped[str] = mapped_column(Text)
    # Of `content` in the default encoding, as a message's `tokens`.
    tokens: Mapped[int] = mapped_column(Integer)
    method: Mapped[str] = mapped_column(String(16))
    # The messages whose sentences an extractive summary quotes, one per line of it after the
    # header, in order; empty for an LLM's.
    quoted_seqs: Mapped[list[int]] = mapped_column(ARRAY(Integer))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class InputVector(Base):
    """One model's vector of a text appended as a user message, by tenant and the text's hash:
    unlogged, kept a few minutes for the build that takes it as its input
    (`app.sessions.input_vectors`)."""

    __tablename__ = "input_vector"
    __table_args__ = (
        Index("ix_input_vector_created", "created_at"),
        {"prefixes": ["UNLOGGED"]},
    )

    tenant_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    model: Mapped[str] = mapped_column(String(200), primary_key=True)
    digest: Mapped[bytes] = mapped_column(LargeBinary, primary_key=True)
    session_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("conversation_session.id", ondelete="CASCADE")
    )
    vector: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
