"""A real `python -m app serve` on the test database, two committed tenants, and MCP clients
of it over streamable HTTP (/mcp) and over stdio (`python -m app mcp --url`)."""

import contextlib
import sys
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from app.core.db import Database
from tests.factories import Tenancy, new_tenancy, remove_tenancy
from tests.process.launcher import REPO, client, free_port, launch, service_env, wait_ready

McpClientOf = Callable[[str], AbstractAsyncContextManager[Client]]


@dataclass(frozen=True)
class Service:
    """The served process: its base URL, and the environment a process of ours runs with."""

    url: str
    port: int
    env: dict[str, str]


@pytest.fixture(scope="package")
async def tenants(database: Database) -> AsyncIterator[tuple[Tenancy, Tenancy]]:
    """Two committed tenants (made before the server starts: it issues no first key then)."""
    first, second = (
        await new_tenancy(database.sessionmaker),
        await new_tenancy(database.sessionmaker),
    )
    yield first, second
    for tenancy in (first, second):
        await remove_tenancy(database.sessionmaker, tenancy)


@pytest.fixture(scope="package")
def tenancy_a(tenants: tuple[Tenancy, Tenancy]) -> Tenancy:
    return tenants[0]


@pytest.fixture(scope="package")
def tenancy_b(tenants: tuple[Tenancy, Tenancy]) -> Tenancy:
    return tenants[1]


@pytest.fixture(scope="package")
def service(
    tmp_path_factory: pytest.TempPathFactory, database_url: str, tenants: tuple[Tenancy, Tenancy]
) -> Iterator[Service]:
    """`python -m app serve` on the suite's database (no worker: tests read what is written)."""
    root = tmp_path_factory.mktemp("mcp-serve")
    port = free_port()
    env = service_env(
        root / "data",
        port,
        CE_DATABASE__URL=database_url,
        CE_WORKER__IN_PROCESS="false",
    )
    with launch("serve", env, root / "logs", "serve") as server:
        with client(port) as anonymous:
            wait_ready(server, anonymous)
        yield Service(f"http://127.0.0.1:{port}", port, env)
        server.check_alive()


@pytest.fixture(scope="package")
def api(service: Service, tenancy_a: Tenancy) -> Iterator[httpx.Client]:
    """The service's HTTP API with tenant A's key."""
    with client(service.port, tenancy_a.key) as http:
        yield http


@pytest.fixture
def agent(api: httpx.Client) -> str:
    """A new agent of tenant A: the corpus figures a build keeps of it start from its first."""
    agent_id = f"agent-{uuid.uuid4().hex[:8]}"
    response = api.put(f"/agents/{agent_id}", json={"identity": {"name": "Newton"}})
    assert response.status_code in (200, 201), response.text
    return agent_id


def http_client(service: Service) -> McpClientOf:
    @contextlib.asynccontextmanager
    async def connect(key: str) -> AsyncIterator[Client]:
        headers = {"Authorization": f"Bearer {key}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60.0, trust_env=False) as http,
            Client(streamable_http_client(f"{service.url}/mcp", http_client=http)) as mcp,
        ):
            yield mcp

    return connect


def stdio_client(service: Service, *extra: str) -> McpClientOf:
    @contextlib.asynccontextmanager
    async def connect(key: str) -> AsyncIterator[Client]:
        args = ["-m", "app", "mcp", *extra, "--api-key", key]
        params = StdioServerParameters(command=sys.executable, args=args, env=service.env, cwd=REPO)
        async with Client(params) as mcp:
            yield mcp

    return connect


@pytest.fixture(params=["http", "stdio"])
def mcp_of(request: pytest.FixtureRequest, service: Service) -> McpClientOf:
    """An MCP client of the service with a given key, over each transport in turn."""
    if request.param == "http":
        return http_client(service)
    return stdio_client(service, "--url", service.url)
