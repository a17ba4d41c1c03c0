"""Test fixtures: one embedded PostgreSQL per run, migrations once, each test rolled back."""

import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession, async_sessionmaker

from app.core.config import DatabaseSettings, Settings, WorkerSettings
from app.core.db import Database
from app.core.embedded_db import EmbeddedPostgres
from app.core.worker import Worker
from app.main import attach_runtime, create_app
from app.providers.container import Providers, build_providers
from app.providers.tokenizer import TokenCounter
from app.runtime import Runtime, build_handlers, open_database, prepare_schema
from tests.factories import Tenancy, new_tenancy, remove_tenancy
from tests.fake_openai import FakeOpenAI
from tests.netguard.sitecustomize import install
from tests.openai_stack import FAST_BREAKER, FAST_WORKER, Stack, open_stack


@pytest.fixture(scope="session", autouse=True)
def no_network() -> Iterator[None]:
    """Block every connection that does not stay on this machine."""
    mp = pytest.MonkeyPatch()
    install(mp.setattr)
    yield
    mp.undo()


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("data")


@pytest.fixture(scope="session")
def database_url(data_dir: Path) -> Iterator[str]:
    server = EmbeddedPostgres(data_dir, "context_engine_test")
    yield server.start()
    server.stop()


@pytest.fixture(scope="session")
def token_counter(tmp_path_factory: pytest.TempPathFactory) -> TokenCounter:
    """The tokenizers alone, for tests of pure steps: no database starts for them."""
    return TokenCounter(tmp_path_factory.mktemp("tiktoken"))


@pytest.fixture(scope="session")
def settings(data_dir: Path, database_url: str) -> Settings:
    return Settings(
        _env_file=None,
        data_dir=data_dir,
        database=DatabaseSettings(url=SecretStr(database_url)),
        worker=WorkerSettings(in_process=False, backoff_base_seconds=0.01),
    )


@pytest.fixture(scope="session")
def providers(settings: Settings) -> Providers:
    """Tokenizer and the local embedding model, loaded once for the run."""
    return build_providers(settings)


@pytest.fixture(scope="session")
async def database(settings: Settings) -> AsyncIterator[Database]:
    """Connected and migrated as the service does it, on the test server of `settings`."""
    async with open_database(settings) as database:
        await prepare_schema(database, settings.embeddings.model, settings.embeddings.dimensions)
        yield database


@pytest.fixture
async def connection(database: Database) -> AsyncIterator[AsyncConnection]:
    """A connection inside a transaction that is rolled back after the test."""
    async with database.engine.connect() as connection:
        transaction = await connection.begin()
        yield connection
        await transaction.rollback()


@pytest.fixture
def sessionmaker(connection: AsyncConnection) -> async_sessionmaker[AsyncSession]:
    """Sessions whose commits are savepoints of the test's transaction."""
    return async_sessionmaker(
        bind=connection, expire_on_commit=False, join_transaction_mode="create_savepoint"
    )


@pytest.fixture
def runtime(
    settings: Settings,
    database: Database,
    providers: Providers,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> Runtime:
    isolated = Database(database.engine, sessionmaker)
    worker = Worker(sessionmaker, build_handlers(providers, settings), settings.worker)
    return Runtime(settings, isolated, providers, worker)


@contextlib.asynccontextmanager
async def client_of(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of the app over `runtime`, in process."""
    app = create_app(runtime.settings)
    attach_runtime(app, runtime)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


@pytest.fixture
async def client(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    async with client_of(runtime) as client:
        yield client


@pytest.fixture
def worker(runtime: Runtime) -> Worker:
    return runtime.worker


@pytest.fixture
async def tenancy(sessionmaker: async_sessionmaker[AsyncSession]) -> Tenancy:
    """A tenant with a key, and the headers that carry it."""
    return await new_tenancy(sessionmaker)


@pytest.fixture
async def other_tenancy(sessionmaker: async_sessionmaker[AsyncSession]) -> Tenancy:
    return await new_tenancy(sessionmaker)


@pytest.fixture(scope="session")
def fake_openai_server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(default_dimensions=384) as server:
        yield server


@pytest.fixture
def fake(fake_openai_server: FakeOpenAI) -> Iterator[FakeOpenAI]:
    """The shared fake OpenAI server with no failures and an empty request log."""
    fake_openai_server.reset()
    yield fake_openai_server
    fake_openai_server.reset()


@pytest.fixture
async def fast_stack(
    settings: Settings,
    database: Database,
    sessionmaker: async_sessionmaker[AsyncSession],
    fake: FakeOpenAI,
) -> AsyncIterator[Stack]:
    """An app and a worker against the fake OpenAI server, with fast retry and breaker clocks."""
    async with open_stack(
        settings, database, sessionmaker, fake, worker=FAST_WORKER, breaker=FAST_BREAKER
    ) as opened:
        yield opened


@pytest.fixture
def committed_runtime(settings: Settings, database: Database, providers: Providers) -> Runtime:
    """Like `runtime`, but every request and job commits for real."""
    worker = Worker(database.sessionmaker, build_handlers(providers, settings), settings.worker)
    return Runtime(settings, database, providers, worker)


@pytest.fixture
async def committed_client(committed_runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    async with client_of(committed_runtime) as client:
        yield client


@pytest.fixture
async def committed_tenancy(database: Database) -> AsyncIterator[Tenancy]:
    """A committed tenant, removed with everything it owns after the test."""
    tenancy = await new_tenancy(database.sessionmaker)
    yield tenancy
    await remove_tenancy(database.sessionmaker, tenancy)
