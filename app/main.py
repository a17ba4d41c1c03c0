"""The application factory."""

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator

import prometheus_client
import structlog
from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

from app.agents.router import router as agents_router
from app.context.engine import ContextEngine
from app.context.followups.stored_builds import builds_naming, delete_session_builds, scrub_builds
from app.context.frames.catalogue import BUILTIN_FRAMES
from app.context.frames.router import router as frames_router
from app.context.router import router as context_router
from app.core import shared_metrics
from app.core.config import Settings
from app.core.errors import install_error_handlers
from app.core.middleware import (
    BodySizeLimitMiddleware,
    RequestContextMiddleware,
    UnexpectedErrorMiddleware,
)
from app.core.migrations import head_revision
from app.core.openapi import install_openapi
from app.efforts.router import router as efforts_router
from app.efforts.tracking import on_append
from app.inspect.mount import install_inspector
from app.mcp.mount import mount_mcp
from app.memories.peers import MemoryPeers
from app.memories.router import router as memories_router
from app.ops.router import router as ops_router
from app.providers.container import Providers
from app.retention.router import router as retention_router
from app.runtime import Runtime, start_runtime, stop_task
from app.sessions.peers import SessionPeers
from app.sessions.router import router as sessions_router
from app.tenants.bootstrap import ensure_first_key
from app.tools.router import router as tools_router
from app.tools.router import search_router

log = structlog.get_logger(__name__)

DESCRIPTION = """
Context as a service for LLM agents. Agents write what they learn (decisions, facts,
procedures, episodes, censors); before each LLM call they ask for the few memories that matter,
at the right detail, inside a hard token budget.

Every route except the probes, `/metrics` and these docs needs `Authorization: Bearer <key>`.
Errors are `application/problem+json` (RFC 9457).
"""


def attach_runtime(app: FastAPI, runtime: Runtime) -> None:
    """Make the process's database, providers and worker available to requests."""
    app.state.settings = runtime.settings
    app.state.database = runtime.database
    app.state.providers = runtime.providers
    app.state.worker = runtime.worker
    app.state.context_engine = ContextEngine.create(runtime.providers, runtime.settings.context)
    app.state.schema_head = head_revision()
    attach_peers(app)


def attach_peers(app: FastAPI) -> None:
    """What the lower packages need of the higher ones (docs/layout.md, "Layers"); the context
    engine is attached first."""
    app.state.agents_kept = app.state.context_engine
    app.state.memory_peers = MemoryPeers(builds_naming=builds_naming, scrub_builds=scrub_builds)
    app.state.session_peers = SessionPeers(appended=on_append, builds_erased=delete_session_builds)


# A collection of the young generation after this many more allocations than frees, not
# Python's 700: a build's temporaries are freed by their reference counts long before, so
# collections stop walking them and promoting them to be walked again by the older generations.
GC_THRESHOLDS = (20_000, 20, 20)


def settle_garbage_collector() -> None:
    """What startup made (the model, SQLAlchemy's and pydantic's schemas) lives as long as the
    process: frozen, the collector stops walking it on every collection (on two cores, builds at
    16 clients went from 31.9 to 34.8 per second). With `GC_THRESHOLDS`, ~1,100 builds spent
    24-29 ms collecting instead of 0.9-1.2 s, and the oldest generation stopped pausing the
    event loop about 10 ms (up to 29) every ~45 builds."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def create_app(
    settings: Settings,
    *,
    providers: Providers | None = None,
    run_worker: bool | None = None,
    bootstrap_key: bool = True,
) -> FastAPI:
    """Build the application; the lifespan opens the database, providers and worker."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        in_process = settings.worker.in_process if run_worker is None else run_worker
        async with start_runtime(settings, providers=providers, run_worker=in_process) as runtime:
            attach_runtime(app, runtime)
            # Embed the built-in frames' examples now, not during the first build; a provider
            # that is down or slow delays that, not the start (builds use cue words meanwhile).
            engine: ContextEngine = app.state.context_engine
            warming = asyncio.create_task(
                engine.selector.warm(BUILTIN_FRAMES, settings.breaker.max_pause_seconds),
                name="warm",
            )
            await asyncio.wait({warming}, timeout=settings.context.embedding_deadline_seconds)
            if bootstrap_key:
                await ensure_first_key(runtime.database, settings.data_dir)
            settle_garbage_collector()
            log.info("service.ready", worker_in_process=in_process)
            try:
                async with mcp.running():
                    yield
            finally:
                await stop_task(warming)
                shared_metrics.leave()

    # Prometheus' *_created series double the output and no dashboard of ours reads them.
    prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]  # untyped upstream
    app = FastAPIOffline(
        title="Context Engine",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
    )
    install_error_handlers(app)
    install_openapi(app, batch_max_items=settings.api.batch_max_items)
    app.add_middleware(UnexpectedErrorMiddleware)  # innermost: the others see its 500
    app.add_middleware(BodySizeLimitMiddleware, max_bytes=settings.api.max_body_bytes)
    app.add_middleware(RequestContextMiddleware, access_log=settings.access_log)
    app.include_router(ops_router)
    app.include_router(agents_router)
    app.include_router(frames_router)
    app.include_router(memories_router)
    app.include_router(search_router)
    app.include_router(sessions_router)
    app.include_router(efforts_router)
    app.include_router(context_router)
    app.include_router(tools_router)
    app.include_router(retention_router)
    install_inspector(app)
    mcp = mount_mcp(app)
    return app


def app_from_environment() -> FastAPI:
    """The app of one of several API processes (`serve --workers N`): uvicorn starts each
    process afresh, so each reads the settings and sets up its logging itself."""
    from app.core.config import get_settings
    from app.core.logging import configure_logging

    settings = get_settings()
    configure_logging(settings.log_level, json=settings.log_json)
    return create_app(settings)
