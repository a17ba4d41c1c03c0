"""Stored context builds: what was asked, what was returned, and the feedback on it."""

import uuid
from datetime import datetime

from pydantic import JsonValue
from sqlalchemy import DateTime, Float, ForeignKey, Index, Integer, String, Text, Uuid, func, text
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base
from app.core.documents import JsonDocument
from app.core.vector import Embedding, VectorType


class ContextBuild(Base):
    """One built context and its manifest, kept so that it can be read, refreshed and rated."""

    __tablename__ = "context_build"
    __table_args__ = (
        Index("ix_context_build_agent_created", "agent_id", "created_at"),
        # Erasing a build finds the builds a refresh made of it (few: only those are held).
        Index(
            "ix_context_build_parent_id",
            "parent_id",
            postgresql_where=text("parent_id IS NOT NULL"),
        ),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenant.id"), index=True)
    # Erased with its agent; a refresh's build outlives the build it refreshed.
    agent_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("agent.id", ondelete="CASCADE"))
    parent_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("context_build.id", ondelete="SET NULL")
    )
    input: Mapped[str] = mapped_column(Text)
    frame: Mapped[str] = mapped_column(String(64))
    budget: Mapped[int] = mapped_column(Integer)
    tokens_used: Mapped[int] = mapped_column(Integer)
    request: Mapped[dict[str, JsonValue]] = mapped_column(JSONB)
    response: Mapped[str] = mapped_column(JsonDocument)  # the response as it was returned
    item_ids: Mapped[list[uuid.UUID]] = mapped_column(ARRAY(Uuid))
    centroid: Mapped[Embedding | None] = mapped_column(VectorType())
    relevance: Mapped[float | None] = mapped_column(Float)
    feedback: Mapped[dict[str, JsonValue] | None] = mapped_column(JSONB)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
