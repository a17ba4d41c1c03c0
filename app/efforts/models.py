"""Efforts of a session: a titled piece of work whose messages are raw in working memory while it
is open, shown by their summary once concluded, and raw again for a while when expanded."""

import uuid
from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base

STATES = ("open", "concluded", "expanded")


class SessionEffort(Base):
    """An effort of a session, named `e_{number}` in URLs and in the context; turns are the
    session's (`ConversationSession.turns`: its user messages)."""

    __tablename__ = "session_effort"
    __mapper_args__ = {"eager_defaults": True}  # noqa: RUF012 - SQLAlchemy's declaration
    __table_args__ = (
        UniqueConstraint("session_id", "number"),
        CheckConstraint(f"state IN {STATES!r}", name="state"),
        CheckConstraint("method IN ('extractive', 'llm')", name="method"),
        # Messages belong to the one open effort of their session.
        Index(
            "ix_session_effort_one_open",
            "session_id",
            unique=True,
            postgresql_where=text("state = 'open'"),
        ),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    session_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("conversation_session.id", ondelete="CASCADE")
    )
    number: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(String(200))
    goal: Mapped[str | None] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(16))
    opened_turn: Mapped[int] = mapped_column(Integer)
    concluded_turn: Mapped[int | None] = mapped_column(Integer)
    expanded_turn: Mapped[int | None] = mapped_column(Integer)
    # Opening, concluding and expanding count as references, besides messages and tool calls.
    last_referenced_turn: Mapped[int] = mapped_column(Integer)
    # Made in the background once concluded (`app.efforts.tasks`); NULL until then.
    summary: Mapped[str | None] = mapped_column(Text)
    summary_tokens: Mapped[int | None] = mapped_column(Integer)
    method: Mapped[str | None] = mapped_column(String(16))
    # Stemmed as PostgreSQL stems English: its title's and goal's words, and its summary's most
    # frequent ones; a message holding enough of them refers to the effort.
    keywords: Mapped[list[str]] = mapped_column(ARRAY(Text), default=list, server_default="{}")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    concluded_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    @property
    def effort_id(self) -> str:
        return f"e_{self.number}"
