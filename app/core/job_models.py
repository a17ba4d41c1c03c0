"""The job table, what a claim hands a handler and what a handler is (`app.core.jobs` holds
their SQL, `app.core.worker` runs the handlers)."""

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol, get_args, runtime_checkable

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Identity,
    Index,
    Integer,
    String,
    Text,
    func,
    text,
)
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base

# A memory's: its vector, its rescoring model's vector, its LLM summary. A session's: its span
# summaries, its messages' vectors, its concluded efforts' summaries. An agent's: its retention
# run (`app.retention`).
Task = Literal[
    "embed",
    "rescore",
    "summarize",
    "summarize_spans",
    "embed_messages",
    "effort_summaries",
    "retention",
]
TASKS: tuple[Task, ...] = get_args(Task)
NOTIFY_CHANNEL = "ce_jobs"


class Job(Base):
    """One unit of background work on one memory, or on one session or agent (all of its
    pending work of the task: at most one such job waits per session or agent and task)."""

    __tablename__ = "job"
    __table_args__ = (
        CheckConstraint("num_nonnulls(memory_id, session_id, agent_id) = 1", name="one_subject"),
        Index(
            "ix_job_session_waiting",
            "session_id",
            "task",
            unique=True,
            postgresql_where=text("state = 'queued'"),
        ),
        Index(
            "ix_job_agent_waiting",
            "agent_id",
            "task",
            unique=True,
            postgresql_where=text("state = 'queued'"),
        ),
        Index(
            "ix_job_claimable",
            "task",
            "id",
            postgresql_where=text("state IN ('queued', 'running')"),
        ),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    memory_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("memory.id", ondelete="CASCADE"), index=True
    )
    session_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("conversation_session.id", ondelete="CASCADE"), index=True
    )
    agent_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("agent.id", ondelete="CASCADE"), index=True
    )
    task: Mapped[str] = mapped_column(String(16))
    state: Mapped[str] = mapped_column(String(16), default="queued")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    # Attempts that failed for a reason of the job's own (not an outage); `max_attempts` of
    # those and it fails for good.
    failures: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    max_attempts: Mapped[int] = mapped_column(Integer)
    run_after: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    locked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    locked_by: Mapped[str | None] = mapped_column(String(100))
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


@dataclass(frozen=True)
class ClaimedJob:
    """A job held under one claim until its outcome is reported. `claim` is written to the
    job's `locked_by`: once another claim takes the job over, this one can change nothing."""

    job_id: int
    claim: str
    task: Task
    subject_id: uuid.UUID  # the memory's id; for a session's or an agent's task, theirs
    attempts: int
    failures: int
    max_attempts: int


class ProviderGate(Protocol):
    """A provider's circuit breaker, as the worker sees it."""

    @property
    def state(self) -> Literal["closed", "open", "trial"]: ...

    @property
    def recovered(self) -> bool: ...

    def ready(self) -> bool: ...

    def take_recovery(self) -> bool: ...


@runtime_checkable
class Yielding(Protocol):
    """A handler whose task waits for another: a pass of the worker that took a whole batch of
    `yields_to` claims none of it."""

    yields_to: str


class Handler(Protocol):
    """Runs a batch of jobs of one task and completes them; raises to have the batch retried."""

    task: str
    batch_size: int
    # The breaker of the provider the task calls: no claims while it pauses calls.
    breaker: ProviderGate | None

    async def run(
        self, sessionmaker: async_sessionmaker[AsyncSession], jobs: Sequence[ClaimedJob]
    ) -> Mapping[int, str]:
        """Returns the jobs the provider rejects for good (job id → why); the rest are done."""
        ...
