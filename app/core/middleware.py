"""ASGI middleware: request ids and logging context, metrics by route, the body size limit, and
the answer to an unexpected error."""

import time
import uuid

import structlog
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.errors import problem_response, unexpected_problem
from app.core.metrics import HTTP_LATENCY, HTTP_REQUESTS

log = structlog.get_logger()


class RequestContextMiddleware:
    """Gives each request an id (echoed as X-Request-ID and on every log line of the request),
    records its metrics and, with `access_log`, logs it (`http.request`: method, path, route,
    status, milliseconds; not the query string, which may hold a user's words); every answer
    says `X-Content-Type-Options: nosniff`."""

    def __init__(self, app: ASGIApp, *, access_log: bool = True) -> None:
        self.app = app
        self.access_log = access_log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = dict(scope["headers"]).get(b"x-request-id", b"")
        request_id = sent.decode("latin-1")[:64] or uuid.uuid4().hex
        if len(sent) > 64 or not sent:
            # The id as logged, in the headers too: what reads them rather than the logging
            # context (MCP's tools) logs under the same one.
            scope["headers"] = [
                *((name, value) for name, value in scope["headers"] if name != b"x-request-id"),
                (b"x-request-id", request_id.encode("latin-1")),
            ]
        structlog.contextvars.bind_contextvars(request_id=request_id)
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                answer = message.setdefault("headers", [])
                answer.append((b"x-request-id", request_id.encode("latin-1")))
                # Every answer is what its content-type says: browsers must not guess another.
                if all(name.lower() != b"x-content-type-options" for name, _ in answer):
                    answer.append((b"x-content-type-options", b"nosniff"))
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", "unmatched")
            seconds = time.perf_counter() - started
            HTTP_REQUESTS.labels(template, scope["method"], str(status)).inc()
            HTTP_LATENCY.labels(template, scope["method"]).observe(seconds)
            if self.access_log:
                log.info(
                    "http.request",
                    method=scope["method"],
                    path=scope["path"],
                    route=template,
                    status=status,
                    ms=round(seconds * 1000, 1),
                )
            structlog.contextvars.unbind_contextvars("request_id")


class BodySizeLimitMiddleware:
    """Answers 413 for request bodies over the configured size, announced or streamed."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        detail = (
            f"The request body is over {self.max_bytes} bytes (CE_API__MAX_BODY_BYTES); "
            "send fewer memories per batch."
        )
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            response = problem_response(413, "Payload too large", detail, scope["path"])
            await response(scope, receive, send)
            return
        received = 0
        answered = False

        async def limited_receive() -> Message:
            nonlocal received, answered
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes and not answered:
                    # Answer now and make the application stop reading: the rest is not wanted.
                    answered = True
                    response = problem_response(413, "Payload too large", detail, scope["path"])
                    await response(scope, receive, send)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            if not answered:
                await send(message)

        await self.app(scope, limited_receive, guarded_send)


class UnexpectedErrorMiddleware:
    """Answers 500 problem+json for an error no handler expected, and keeps the connection.

    Starlette's own catch-all answers and then raises the error again to the server, which
    drops the connection without `Connection: close`: a keep-alive client's next request, an
    unrelated one, then failed with "connection reset". Here the error ends with the answer.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception:
            if started:  # half a response cannot be finished: the server closes the connection
                raise
            await unexpected_problem(scope["path"])(scope, receive, send)
