"""`python -m app mcp`: the MCP server over stdio, for desktop clients.

With `--url` it calls a running service's API with the given key. Without, it runs the
service in this process against the local data directory (the embedded database starts as for
`serve`) and calls that app's API in process, with `--api-key` or the data directory's key.
Standard output carries the protocol: everything else goes to standard error.
"""

import contextlib
import sys
from collections.abc import AsyncIterator, Callable

import httpx
import structlog
from fastapi import FastAPI

from app.core.config import Settings
from app.mcp.api import ServiceApi
from app.mcp.calls import McpContext
from app.mcp.server import create_mcp_server
from app.tenants.bootstrap import KEY_FILE

# A build on a cold service, or a write queued behind others, may take a while.
HTTP_TIMEOUT_SECONDS = 60.0


class MissingKey(RuntimeError):
    """No key was given and the data directory holds none."""


async def _serve(http: httpx.AsyncClient) -> None:
    @contextlib.asynccontextmanager
    async def connect(ctx: McpContext) -> AsyncIterator[ServiceApi]:
        yield ServiceApi(http)

    await create_mcp_server(connect).run_stdio_async()


def _headers(api_key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"}


async def serve_remote(url: str, api_key: str) -> None:
    """MCP over stdio, calling the service at `url` with `api_key`."""
    async with httpx.AsyncClient(
        base_url=url, headers=_headers(api_key), timeout=HTTP_TIMEOUT_SECONDS
    ) as http:
        await _serve(http)


async def serve_local(
    settings: Settings, api_key: str | None, create_app: Callable[[Settings], FastAPI]
) -> None:
    """MCP over stdio, with the service (`app.main.create_app`, given by the command line)
    running in this process on the configured database."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        key = api_key or _stored_key(settings)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://context-engine.local", headers=_headers(key)
        ) as http:
            await _serve(http)


def _stored_key(settings: Settings) -> str:
    key_file = settings.data_dir / KEY_FILE
    if not key_file.exists():
        raise MissingKey(
            f"No key given and none in {key_file}: create one with `python -m app keys create` "
            "and set it as CE_API_KEY (or pass --api-key)."
        )
    return key_file.read_text().strip()


def log_to_stderr() -> None:
    """Keep standard output for the protocol: structured logs go to standard error."""
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(file=sys.stderr))
