"""Memories of every kind, in one table so one search covers all kinds."""

import uuid
from datetime import datetime

from pydantic import JsonValue
from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Computed,
    DateTime,
    Float,
    ForeignKey,
    Identity,
    Index,
    Integer,
    SmallInteger,
    String,
    Text,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, TSVECTOR
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base
from app.core.vector import Embedding, VectorType

KINDS = ("decision", "fact", "procedure", "episode", "censor")


class Memory(Base):
    """A memory with its three representations, token counts, embedding and text document."""

    __tablename__ = "memory"
    # Server defaults (timestamps, the text document) come back with the INSERT.
    __mapper_args__ = {"eager_defaults": True}  # noqa: RUF012 - SQLAlchemy's declaration
    __table_args__ = (
        CheckConstraint(f"kind IN {KINDS!r}", name="kind"),
        Index("ix_memory_agent_created", "agent_id", text("created_at DESC"), text("id DESC")),
        Index("ix_memory_agent_kind_state", "agent_id", "kind", "state"),
        Index("ix_memory_agent_timeline", "agent_id", "occurred_at", "seq"),
        # Erasing a memory looks up the facts it superseded (few: the index holds only those).
        Index(
            "ix_memory_superseded_by",
            "superseded_by",
            postgresql_where=text("superseded_by IS NOT NULL"),
        ),
        Index(
            "ix_memory_metadata",
            "metadata",
            postgresql_using="gin",
            postgresql_ops={"metadata": "jsonb_path_ops"},
        ),
        # GIN over (agent, words) through btree_gin: a word search reads only the agent's rows.
        # New entries go into it at once: a pending list would be scanned by every search.
        Index(
            "ix_memory_agent_search",
            "agent_id",
            "search_document",
            postgresql_using="gin",
            postgresql_with={"fastupdate": "off"},
        ),
        # The memories that share an anchor with a build's strongest hits
        # (`app.context.retrieval.links`).
        Index(
            "ix_memory_agent_anchors",
            "agent_id",
            "anchors",
            postgresql_using="gin",
            postgresql_with={"fastupdate": "off"},
        ),
        # The memories that have a rescoring vector (`rescore_repository.drop_other_models`).
        Index(
            "ix_memory_rescored",
            "rescore_model",
            postgresql_where=text("rescore_model IS NOT NULL"),
        ),
        Index(
            "ix_memory_embedding",
            "embedding",
            postgresql_using="hnsw",
            postgresql_ops={"embedding": "vector_cosine_ops"},
        ),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    # Order of writing, also within one batch: what happened at the same time stays in order.
    seq: Mapped[int] = mapped_column(BigInteger, Identity())
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenant.id"), index=True)
    agent_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("agent.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))
    state: Mapped[str] = mapped_column(String(16))
    fields: Mapped[dict[str, JsonValue]] = mapped_column(JSONB)
    micro: Mapped[str] = mapped_column(Text)
    summary: Mapped[str] = mapped_column(Text)
    full_text: Mapped[str] = mapped_column(Text)
    summary_source: Mapped[str] = mapped_column(String(16))
    token_counts: Mapped[dict[str, dict[str, int]]] = mapped_column(JSONB)
    confidence: Mapped[float | None] = mapped_column(Float)
    outcome: Mapped[str | None] = mapped_column(String(16))
    superseded_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("memory.id"))
    reference_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    last_referenced_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The share of its score a build gives it: below 1 for a fact retention found stale.
    rank_factor: Mapped[float] = mapped_column(Float, default=1.0, server_default=text("1"))
    source: Mapped[str | None] = mapped_column(String(200))
    meta: Mapped[dict[str, JsonValue]] = mapped_column("metadata", JSONB, default=dict)
    occurred_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # Whether the writer said when it happened (occurred_at, an episode's started_at or
    # ended_at); if not, occurred_at is only when it was written, and says nothing of what
    # happened near it: an import of a month of notes is written in a minute.
    dated: Mapped[bool] = mapped_column(Boolean, server_default=text("true"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )
    embedding: Mapped[Embedding | None] = mapped_column(VectorType())
    embedding_model: Mapped[str | None] = mapped_column(String(200))
    embedded_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The rescoring model's vector (CE_EMBEDDINGS__RESCORE_MODEL), computed after `embedding`.
    rescore_embedding: Mapped[Embedding | None] = mapped_column(VectorType())
    rescore_model: Mapped[str | None] = mapped_column(String(200))
    # Its names and rare terms, lower case (`app.providers.anchors`): what ties it to others.
    anchors: Mapped[list[str]] = mapped_column(
        ARRAY(Text), default=list, server_default=text("'{}'::text[]")
    )
    search_document: Mapped[str] = mapped_column(
        TSVECTOR, Computed("to_tsvector('english'::regconfig, full_text)", persisted=True)
    )


class EmbeddingSpace(Base):
    """The model every stored vector comes from (one row): vectors of two models of the same
    dimension are not comparable, so a change of model is noticed at start."""

    __tablename__ = "embedding_space"
    __table_args__ = (CheckConstraint("id = 1", name="one_row"),)

    id: Mapped[int] = mapped_column(SmallInteger, primary_key=True, default=1)
    model: Mapped[str] = mapped_column(String(200))
    dimensions: Mapped[int] = mapped_column(Integer)
    recorded_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now()
    )


class MemoryCold(Base):
    """A memory's record as it was before retention trimmed it: its fields, full text and the
    full text's token counts. Reads of the memory show these instead of the trimmed ones."""

    __tablename__ = "memory_cold"

    memory_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("memory.id", ondelete="CASCADE"), primary_key=True
    )
    fields: Mapped[dict[str, JsonValue]] = mapped_column(JSONB)
    full_text: Mapped[str] = mapped_column(Text)
    full_tokens: Mapped[dict[str, int]] = mapped_column(JSONB)  # by encoding
    moved_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class MemoryTransition(Base):
    """One lifecycle action taken on a memory (through the API, or a repeated write that
    confirmed a fact): when, which, the states before and after, and for a decision's outcome
    the outcome and notes before and after. Retention's own changes are kept, with their
    reasons, in `retention_change`."""

    __tablename__ = "memory_transition"
    __table_args__ = (Index("ix_memory_transition_memory", "memory_id", "id"),)

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    memory_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("memory.id", ondelete="CASCADE"))
    action: Mapped[str] = mapped_column(String(32))
    from_state: Mapped[str] = mapped_column(String(16))
    to_state: Mapped[str] = mapped_column(String(16))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    # {"outcome": {"from": "success", "to": "failure"}, "outcome_notes": {...}}; else null.
    changes: Mapped[dict[str, JsonValue] | None] = mapped_column(JSONB)


class MemoryTombstone(Base):
    """What is left of an erased memory: its id, kind and time of erasure, no content. Stored
    builds and calibrations that counted it name its id; reading it answers 410 Gone."""

    __tablename__ = "memory_tombstone"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenant.id", ondelete="CASCADE"))
    # Indexed: erasing an agent takes its tombstones with it.
    agent_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("agent.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(16))
    erased_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
