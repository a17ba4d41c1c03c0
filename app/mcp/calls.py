"""What every MCP tool and resource shares: the caller's API, and its errors as MCP errors."""

import contextlib
import inspect
import re
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

import httpx
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError

from app.mcp.api import ApiError, ServiceApi

# The request context of a tool call; its lifespan and request types are the SDK's business.
McpContext = Context[Any, Any]
Connect = Callable[[McpContext], AbstractAsyncContextManager[ServiceApi]]
Function = TypeVar("Function", bound=Callable[..., Any])

# The API's hints name its routes; over MCP the tool that does the same is the hint.
_HINTS = (
    (re.compile(r"Create it with PUT /agents/\S+\."), "Create it with the create_agent tool."),
)


def tool(server: MCPServer) -> Callable[[Function], Function]:
    """`server.tool()`, described by the function's docstring without its indentation."""

    def register(function: Function) -> Function:
        return server.tool(description=inspect.cleandoc(function.__doc__ or ""))(function)

    return register


def _said(exc: ApiError) -> str:
    message = str(exc)
    for route, instead in _HINTS:
        message = route.sub(instead, message)
    return message


@contextlib.asynccontextmanager
async def _answered(
    connect: Connect,
    ctx: McpContext,
    refused: Callable[[ApiError], Exception],
    unreachable: type[Exception],
) -> AsyncIterator[ServiceApi]:
    """The caller's API; a problem it answers becomes `refused(problem)`, a service out of reach
    `unreachable`."""
    try:
        async with connect(ctx) as api:
            yield api
    except ApiError as exc:
        raise refused(exc) from exc
    except httpx.TransportError as exc:
        raise unreachable(f"The service cannot be reached: {exc!r}") from exc


def service(connect: Connect, ctx: McpContext) -> AbstractAsyncContextManager[ServiceApi]:
    """The caller's API for a tool: a problem, or a service out of reach, is the tool's error
    message."""
    return _answered(connect, ctx, lambda exc: ToolError(_said(exc)), ToolError)


def resource_service(connect: Connect, ctx: McpContext) -> AbstractAsyncContextManager[ServiceApi]:
    """The caller's API for a resource: what is not found is the protocol's not-found error,
    any other problem a resource error with the API's message (not a crash and its traceback)."""

    def refused(exc: ApiError) -> Exception:
        error = ResourceNotFoundError if exc.status in (404, 410) else ResourceError
        return error(_said(exc))

    return _answered(connect, ctx, refused, ResourceError)
