"""Every table, imported so that the metadata is complete for migrations and tests."""

from app.agents.models import Agent
from app.context.models import ContextBuild
from app.core.db import Base
from app.core.idempotency import IdempotencyRecord
from app.core.job_models import Job
from app.efforts.models import SessionEffort
from app.memories.models import (
    EmbeddingSpace,
    Memory,
    MemoryCold,
    MemoryTombstone,
    MemoryTransition,
)
from app.retention.models import RetentionChange, RetentionLimit
from app.sessions.models import ConversationSession, InputVector, SessionMessage
from app.tenants.models import ApiKey, Tenant

__all__ = [
    "Agent",
    "ApiKey",
    "Base",
    "ContextBuild",
    "ConversationSession",
    "EmbeddingSpace",
    "IdempotencyRecord",
    "InputVector",
    "Job",
    "Memory",
    "MemoryCold",
    "MemoryTombstone",
    "MemoryTransition",
    "RetentionChange",
    "RetentionLimit",
    "SessionEffort",
    "SessionMessage",
    "Tenant",
]
