"""What one process holds while it runs: the database, the providers and the worker."""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import structlog

from app.context.retrieval.search import vector_search_settings
from app.core.config import Settings
from app.core.db import Database, asyncpg_url
from app.core.embedded_db import EmbeddedPostgres
from app.core.job_models import Handler
from app.core.migrations import stored_dimensions, upgrade
from app.core.worker import Worker
from app.efforts.tasks import SummarizeEfforts
from app.maintenance.embeddings import EmbeddingModelChanged, check_embedding_model, queue_rescoring
from app.memories.tasks import EmbedMemories, RescoreMemories, SummarizeMemory
from app.providers.container import Providers, build_providers
from app.retention.tasks import RunRetention, schedule
from app.sessions.tasks import SummarizeSpans
from app.sessions.vectors import EmbedMessages

log = structlog.get_logger(__name__)


class StartupError(RuntimeError):
    """The service cannot start as configured; the message says what to change."""


@contextlib.asynccontextmanager
async def open_database(settings: Settings) -> AsyncIterator[Database]:
    """Connect to the configured PostgreSQL, or start the embedded one for the data directory
    and keep it running: if its postmaster dies, it is started again."""
    async with contextlib.AsyncExitStack() as stack:
        if settings.database.url is None:
            embedded = EmbeddedPostgres(settings.data_dir, settings.database.embedded_name)
            url = await asyncio.to_thread(embedded.start)
            stack.push_async_callback(asyncio.to_thread, embedded.stop)
            supervisor = asyncio.create_task(embedded.supervise(), name="embedded-postgres")
            stack.push_async_callback(stop_task, supervisor)  # before the stop: no restart then
        else:
            url = asyncpg_url(settings.database.url.get_secret_value())
        database = Database.connect(
            url,
            pool_size=settings.database.pool_size,
            max_overflow=settings.database.max_overflow,
            server_settings=vector_search_settings(settings.context.vector_candidates),
        )
        stack.push_async_callback(database.dispose)
        yield database


async def stop_task(task: "asyncio.Task[None]") -> None:
    """Cancel a background task and wait until it has stopped; an error it ended with is
    logged, not raised into the shutdown."""
    task.cancel()
    await asyncio.wait({task})
    if not task.cancelled() and (error := task.exception()) is not None:
        log.error("task.failed", task=task.get_name(), exc_info=error)


async def prepare_schema(
    database: Database,
    model: str,
    dimensions: int,
    *,
    reembed_on_model_change: bool = False,
    max_attempts: int = 8,
    rescore_model: str | None = None,
) -> None:
    """Migrate to the newest schema and check that stored vectors match the embedder: its
    dimension, and its model (or, if allowed, queue every memory for re-embedding); queue the
    memories the rescoring model has not embedded."""
    await upgrade(database.engine, dimensions)
    # Connections opened before the extension existed lack the binary vector codec.
    await database.engine.dispose()
    stored = await stored_dimensions(database.engine)
    if stored != dimensions:
        raise StartupError(
            f"The database holds {stored}-dimension embeddings but the embedder makes "
            f"{dimensions}. After changing the embedding model run `python -m app reembed` "
            "to convert the column and recompute every embedding, or restore the old setting."
        )
    try:
        async with database.sessionmaker.begin() as session:
            queued = await check_embedding_model(
                session,
                model,
                dimensions,
                reembed=reembed_on_model_change,
                max_attempts=max_attempts,
            )
    except EmbeddingModelChanged as exc:
        raise StartupError(str(exc)) from exc
    if queued:
        log.warning("embeddings.model_changed", model=model, memories_to_reembed=queued)
    async with database.sessionmaker.begin() as session:
        rescoring = await queue_rescoring(session, rescore_model, max_attempts)
    if rescoring:
        log.info("embeddings.rescoring_queued", model=rescore_model, memories=rescoring)


@contextlib.asynccontextmanager
async def migrated_database(settings: Settings) -> AsyncIterator[Database]:
    """The database with its schema at the newest migration, for commands."""
    async with open_database(settings) as database:
        await upgrade(database.engine, settings.embeddings.dimensions)
        yield database


async def migrate(settings: Settings) -> None:
    """Apply migrations and exit (`make migrate`)."""
    async with migrated_database(settings):
        pass


def build_handlers(providers: Providers, settings: Settings) -> list[Handler]:
    """The job handlers this process can run."""
    handlers: list[Handler] = [
        EmbedMemories(providers.embedder, settings.embeddings.batch_size),
        EmbedMessages(
            providers.embedder,
            settings.embeddings.batch_size,
            settings.worker.max_attempts,
            providers.queries,
        ),
        SummarizeSpans(
            providers.tokens, providers.llm, settings.context, settings.worker.max_attempts
        ),
        RunRetention(providers, settings),
        SummarizeEfforts(
            providers.tokens, providers.llm, settings.context.efforts, settings.worker.max_attempts
        ),
    ]
    if providers.llm is not None:
        handlers.append(SummarizeMemory(providers.llm, providers.tokens))
    if providers.rescorer is not None:
        handlers.append(RescoreMemories(providers.rescorer, settings.embeddings.batch_size))
    return handlers


def _report_worker_exit(task: "asyncio.Task[None]") -> None:
    if not task.cancelled() and (error := task.exception()) is not None:
        log.error("worker.died", error=repr(error), exc_info=error)


@dataclass
class Runtime:
    """The running parts of one process."""

    settings: Settings
    database: Database
    providers: Providers
    worker: Worker


@contextlib.asynccontextmanager
async def start_runtime(
    settings: Settings, *, providers: Providers | None = None, run_worker: bool
) -> AsyncIterator[Runtime]:
    """Open the database, migrate, load the providers and, if asked, run the worker."""
    async with contextlib.AsyncExitStack() as stack:
        database = await stack.enter_async_context(open_database(settings))
        if providers is None:
            providers = await asyncio.to_thread(build_providers, settings)
            stack.push_async_callback(providers.aclose)
        await prepare_schema(
            database,
            providers.embedder.model_name,
            providers.embedder.dimensions,
            reembed_on_model_change=settings.embeddings.reembed_on_model_change,
            max_attempts=settings.worker.max_attempts,
            rescore_model=settings.embeddings.rescore_model,
        )
        worker = Worker(database.sessionmaker, build_handlers(providers, settings), settings.worker)
        runtime = Runtime(settings, database, providers, worker)
        if not run_worker:
            yield runtime
            return
        stop = asyncio.Event()
        task = asyncio.create_task(worker.run(database.engine, stop), name="worker")
        task.add_done_callback(_report_worker_exit)
        background = [task]
        if settings.retention.scheduled:
            background.append(
                asyncio.create_task(
                    schedule(database.sessionmaker, settings, stop), name="retention"
                )
            )
        try:
            yield runtime
        finally:
            stop.set()
            await asyncio.gather(*background)
