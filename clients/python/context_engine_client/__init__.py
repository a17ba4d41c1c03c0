"""Python client of Context Engine: `ContextEngine` (sync) and `AsyncContextEngine` (async)."""

from context_engine_client.async_client import AsyncContextEngine
from context_engine_client.client import ContextEngine
from context_engine_client.core import Call, Retries
from context_engine_client.errors import (
    Conflict,
    ContextEngineError,
    Gone,
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
    "NotFound",
    "RateLimited",
    "Retries",
    "Unauthorized",
    "Unavailable",
    "Unreachable",
    "ValidationError",
]
