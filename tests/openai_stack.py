"""An app and a worker whose providers talk to the fake OpenAI server (tests/fake_openai.py)."""

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
from pydantic import SecretStr
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import (
    BreakerSettings,
    EmbeddingSettings,
    LlmSettings,
    Settings,
    WorkerSettings,
)
from app.core.context_config import ContextSettings
from app.core.db import Database
from app.core.worker import Worker
from app.main import attach_runtime, create_app
from app.memories.repository import EmbeddingSpaceRepository
from app.providers.container import Providers, build_providers
from app.runtime import Runtime, build_handlers
from tests.factories import Tenancy
from tests.fake_openai import FakeOpenAI

# Fast clocks: a job's retry is due after 5-10 ms, far sooner than the breaker's pauses of
# 100-200 ms, so only the breaker keeps the worker from calling on every pass; two attempts
# for a job that fails for a reason of its own (an outage must not count against it).
FAST_WORKER = WorkerSettings(
    in_process=False, max_attempts=2, backoff_base_seconds=0.005, backoff_max_seconds=0.01
)
FAST_BREAKER = BreakerSettings(failures_to_open=2, first_pause_seconds=0.1, max_pause_seconds=0.2)

EMBED_MODEL = "text-embedding-3-small"
CHAT_MODEL = "fake-chat"
DIMENSIONS = 384  # the test database's vector column


@dataclass(frozen=True)
class Stack:
    """An app and a worker whose providers talk to the fake server."""

    settings: Settings
    providers: Providers
    worker: Worker
    client: httpx.AsyncClient


@contextlib.asynccontextmanager
async def open_stack(
    settings: Settings,
    database: Database,
    sessionmaker: async_sessionmaker[AsyncSession],
    fake: FakeOpenAI,
    *,
    embed_model: str = EMBED_MODEL,
    embed_timeout: float = 30.0,
    worker: WorkerSettings | None = None,
    breaker: BreakerSettings | None = None,
    context: ContextSettings | None = None,
    query_cache_size: int = 4096,
) -> AsyncIterator[Stack]:
    """Like the `runtime` and `client` fixtures, with OpenAI-compatible providers."""
    configured = settings.model_copy(
        update={
            "embeddings": EmbeddingSettings(
                provider="openai",
                base_url=fake.url + "/v1",
                api_key=SecretStr("sk-embed"),
                model=embed_model,
                dimensions=DIMENSIONS,
                timeout_seconds=embed_timeout,
                query_cache_size=query_cache_size,
            ),
            "llm": LlmSettings(model=CHAT_MODEL, base_url=fake.url + "/v1", api_key=SecretStr("x")),
            "worker": worker or settings.worker,
            "breaker": breaker or settings.breaker,
            "context": context or settings.context,
        }
    )
    providers = build_providers(configured)
    async with sessionmaker.begin() as session:  # as the service's start records it
        await EmbeddingSpaceRepository(session).record(embed_model, DIMENSIONS)
    isolated = Database(database.engine, sessionmaker)
    runtime = Runtime(
        configured,
        isolated,
        providers,
        Worker(sessionmaker, build_handlers(providers, configured), configured.worker),
    )
    app = create_app(configured)
    attach_runtime(app, runtime)
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            yield Stack(configured, providers, runtime.worker, client)
    finally:
        await providers.aclose()


async def read(stack: Stack, tenancy: Tenancy, memory_id: str) -> dict[str, Any]:
    response = await stack.client.get(f"/memories/{memory_id}", headers=tenancy.headers)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def jobs(memory: dict[str, Any], task: str = "embed") -> list[dict[str, Any]]:
    return [job for job in memory["provenance"]["jobs"] if job["task"] == task]
