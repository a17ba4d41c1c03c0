"""Python client of Context Engine: `ContextEngine` (sync) and `AsyncContextEngine` (async)."""

from context_engine_client.async_client import AsyncContextEngine
from context_engine_client.client import ContextEngine
from context_engine_client.core import Call, Retries
from context_engine_client.errors import (
    Conflict,
    ContextEngineError,
    Gone,
    NoAnswer,
    NotFound,
    RateLimited,
    Unauthorized,
    Unavailable,
    Unreachable,
    ValidationError,
)

__all__ = [
    "AsyncContextEngine",
    "Call",
    "Conflict",
    "ContextEngine",
    "ContextEngineError",
    "Gone",
    "NoAnswer",
    "NotFound",
    "RateLimited",
    "Retries",
    "Unauthorized",
    "Unavailable",
    "Unreachable",
    "ValidationError",
]
