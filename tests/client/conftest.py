"""The Python client in front of the suite's own app (over ASGI), each test rolled back."""

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from context_engine_client import AsyncContextEngine, Retries

from app.main import attach_runtime, create_app
from app.runtime import Runtime
from tests.client.served import Served, serve
from tests.factories import Tenancy

# Retries without waiting: the tests check what is retried, not how long it waits.
QUICK = Retries(attempts=3, backoff=0.0, max_backoff=0.0, max_wait=0.0)


def app_transport(runtime: Runtime) -> httpx.ASGITransport:
    app = create_app(runtime.settings)
    attach_runtime(app, runtime)
    return httpx.ASGITransport(app=app)


@pytest.fixture
async def engine(runtime: Runtime, tenancy: Tenancy) -> AsyncIterator[AsyncContextEngine]:
    """An async client of the app with the tenant's key."""
    transport = app_transport(runtime)
    async with AsyncContextEngine(
        "http://test", tenancy.key, retries=QUICK, transport=transport
    ) as engine:
        yield engine


@pytest.fixture(scope="package")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One real service process for this folder's tests over real HTTP."""
    with serve(tmp_path_factory.mktemp("client-service")) as served:
        yield served
