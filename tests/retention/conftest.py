"""A client of a service whose agents may hold only a few memories."""

import dataclasses
from collections.abc import AsyncIterator

import httpx
import pytest

from app.core.config import RetentionSettings
from app.main import attach_runtime, create_app
from app.runtime import Runtime

LIMIT = 6


@pytest.fixture
async def small_client(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    """Agents past LIMIT memories in play forget down to it."""
    retention = RetentionSettings(max_active_memories=LIMIT, forget_to=1.0)
    settings = runtime.settings.model_copy(update={"retention": retention})
    app = create_app(settings)
    attach_runtime(app, dataclasses.replace(runtime, settings=settings))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client
