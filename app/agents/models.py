"""Agents: identity, working memory and context defaults."""

import uuid
from datetime import datetime

from pydantic import JsonValue
from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, UniqueConstraint, func
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base


class Agent(Base):
    """An agent of a tenant; `name` is the id used in URLs."""

    __tablename__ = "agent"
    __table_args__ = (
        UniqueConstraint("tenant_id", "name"),
        # The list of a tenant's agents, newest first, page by page.
        Index("ix_agent_tenant_created", "tenant_id", "created_at", "name"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenant.id"))
    name: Mapped[str] = mapped_column(String(64))
    identity: Mapped[dict[str, JsonValue]] = mapped_column(JSONB, default=dict)
    working_memory: Mapped[dict[str, JsonValue]] = mapped_column(JSONB, default=dict)
    frames: Mapped[dict[str, JsonValue]] = mapped_column(JSONB, default=dict, server_default="{}")
    default_budget: Mapped[int | None] = mapped_column(Integer)
    # The fields of a build's window it gives (`ContextWindow`, none required): between the
    # request's window and the settings.
    default_window: Mapped[dict[str, JsonValue] | None] = mapped_column(JSONB(none_as_null=True))
    model: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )
