"""What retention keeps: every change it made and why, and an agent's limits (the detail it
moves to cold storage is the memories' own: `app/memories/cold_repository.py`)."""

import uuid
from datetime import datetime

from pydantic import JsonValue
from sqlalchemy import (
    BigInteger,
    DateTime,
    ForeignKey,
    Identity,
    Index,
    Integer,
    String,
    Text,
    func,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base


class RetentionChange(Base):
    """One change a retention run made to a memory: the rule, the states before and after, the
    reason in words and its numbers (salience and its parts, the limit passed)."""

    __tablename__ = "retention_change"
    __table_args__ = (Index("ix_retention_change_memory", "memory_id", "id"),)

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    agent_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("agent.id", ondelete="CASCADE"), index=True
    )
    memory_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("memory.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))
    rule: Mapped[str] = mapped_column(String(32))
    from_state: Mapped[str] = mapped_column(String(16))
    to_state: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text)
    details: Mapped[dict[str, JsonValue]] = mapped_column(JSONB)
    as_of: Mapped[datetime] = mapped_column(DateTime(timezone=True))  # the run's `now`
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    # Set when the change was undone (restore): the memory is not forgotten again.
    restored_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class RetentionLimit(Base):
    """An agent's own size limits for coordinated forgetting; None: the setting's."""

    __tablename__ = "retention_limit"

    agent_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("agent.id", ondelete="CASCADE"), primary_key=True
    )
    max_active_memories: Mapped[int | None] = mapped_column(Integer)
    max_active_tokens: Mapped[int | None] = mapped_column(BigInteger)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )
