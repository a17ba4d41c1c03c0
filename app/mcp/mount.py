"""The MCP server on the service at /mcp (streamable HTTP), with the API's keys.

Each request's key is checked first (401 problem+json, as anywhere in the API); the tools then
call the API in process with that same key, so they see the key's tenant and nothing else.
"""

import contextlib
from collections.abc import AsyncIterator

import httpx
import structlog
from fastapi import FastAPI, Request
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Match, Route
from starlette.types import Receive, Scope, Send

from app.core.db import Database
from app.mcp.api import ServiceApi
from app.mcp.calls import McpContext
from app.mcp.server import create_mcp_server
from app.tenants.service import authenticate

MCP_PATH = "/mcp"
# The base URL of the in-process calls; no request leaves the process.
_IN_PROCESS = "http://context-engine.internal"


def _bearer(authorization: str | None) -> str | None:
    scheme, _, key = (authorization or "").partition(" ")
    return key.strip() or None if scheme.lower() == "bearer" else None


class McpEndpoint:
    """The ASGI endpoint of /mcp: the key's check, then the SDK's streamable HTTP handler."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        server = create_mcp_server(self.connect)
        # Stateless with JSON answers: any replica serves any request, no session to keep.
        # The key guards every request, so DNS rebinding protection (a browser page reaching a
        # local server) adds nothing, and it would refuse the service's own host names.
        server.streamable_http_app(
            stateless_http=True,
            json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self.manager: StreamableHTTPSessionManager = server.session_manager

    @contextlib.asynccontextmanager
    async def connect(self, ctx: McpContext) -> AsyncIterator[ServiceApi]:
        """The API of this app, in process, with the key of the MCP request."""
        received = ctx.headers or {}
        headers = {"Authorization": received.get("authorization", "")}
        # The SDK runs the tool in a task of its own, outside the request's logging context:
        # the id comes with the request's headers (the middleware puts it there). The tool's
        # own lines and the API calls it makes log under it (the SDK's lines about the call,
        # written outside the tool, do not).
        request_id = received.get("x-request-id")
        if request_id:
            structlog.contextvars.bind_contextvars(request_id=request_id)
            headers["X-Request-ID"] = request_id
        transport = httpx.ASGITransport(app=self.app)
        async with httpx.AsyncClient(
            transport=transport, base_url=_IN_PROCESS, headers=headers
        ) as http:
            yield ServiceApi(http)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serve MCP requests while the block runs (the app's lifespan)."""
        async with self.manager.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        database: Database = request.app.state.database
        async with database.sessionmaker.begin() as session:
            # Raises Unauthorized, which the app's handler renders as problem+json.
            await authenticate(session, _bearer(request.headers.get("authorization")))
        await self.manager.handle_request(scope, receive, send)


class _McpRoute(Route):
    """/mcp as the API's routes are: named in the request's scope, so its requests are counted
    under their route like any other (the request metrics read `scope["route"]`)."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        if match is not Match.NONE:
            child["route"] = self
        return match, child


def mount_mcp(app: FastAPI) -> McpEndpoint:
    """Serve MCP at /mcp on `app`; run `endpoint.running()` in its lifespan.

    POST only: stateless with JSON answers, the server has no stream to offer on GET nor
    session to end on DELETE, so those answer 405 at once (as the protocol allows) instead of
    an event stream that never ends.
    """
    endpoint = McpEndpoint(app)
    app.router.routes.append(_McpRoute(MCP_PATH, endpoint, methods=["POST"]))
    return endpoint
