"""Typed domain errors and their RFC 9457 problem+json rendering."""

from collections.abc import Sequence
from http import HTTPStatus

import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import JsonValue
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.orm.exc import StaleDataError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from app.core.db import database_unavailable

PROBLEM_JSON = "application/problem+json"
# Seconds a client should wait before retrying a 503 (the OpenAPI document promises the
# header); the embedded database is started again within about that long.
RETRY_AFTER_SECONDS = 2
_FOREIGN_KEY_VIOLATION = "23503"
_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE")
log = structlog.get_logger(__name__)


class DomainError(Exception):
    """An expected error with an HTTP status; rendered as problem+json."""

    status: int = 400
    title: str = "Bad request"

    def __init__(self, detail: str, **extensions: object) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extensions = extensions


class NotFound(DomainError):
    status = 404
    title = "Not found"


class Gone(NotFound):
    """A resource that existed and was erased for good (RFC 9110 §15.5.11): a not-found that
    says so, caught wherever a not-found is."""

    status = 410
    title = "Gone"


class Conflict(DomainError):
    status = 409
    title = "Conflict"


class Unauthorized(DomainError):
    status = 401
    title = "Unauthorized"


class InvalidInput(DomainError):
    """Input that is well-formed JSON but breaks a rule; names the field at fault."""

    status = 422
    title = "Invalid input"

    def __init__(self, detail: str, *, loc: Sequence[str | int], **extensions: object) -> None:
        super().__init__(detail, errors=[{"loc": list(loc), "msg": detail}], **extensions)


class ServiceUnavailable(DomainError):
    status = 503
    title = "Service unavailable"


def problem_response(
    status: int, title: str, detail: str, instance: str, **extensions: object
) -> JSONResponse:
    """Build an application/problem+json response, with the headers its status calls for."""
    body: dict[str, object] = {
        "type": "about:blank",
        "title": title,
        "status": status,
        "detail": detail,
        "instance": instance,
        **extensions,
    }
    headers = {}
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    elif status == 503:
        headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


async def _domain_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, DomainError)
    return problem_response(exc.status, exc.title, exc.detail, request.url.path, **exc.extensions)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors: list[JsonValue] = [
        {
            "loc": [str(p) if not isinstance(p, int) else p for p in e["loc"]],
            "msg": e["msg"],
            "type": e["type"],
        }
        for e in exc.errors()
    ]
    first = exc.errors()[0] if exc.errors() else None
    where = ".".join(str(p) for p in first["loc"]) if first else "request"
    detail = f"{where}: {first['msg']}" if first else "The request is not valid."
    return problem_response(422, "Invalid input", detail, request.url.path, errors=errors)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    title = HTTPStatus(exc.status_code).phrase
    response = problem_response(exc.status_code, title, str(exc.detail), request.url.path)
    # Starlette's headers say what the client needs next, e.g. a 405's Allow.
    response.headers.update(exc.headers or {})
    if exc.status_code == 405:
        response.headers["Allow"] = _allowed_methods(request)
    return response


def _allowed_methods(request: Request) -> str:
    """Every method the path takes. Starlette's Allow names the methods of the first route that
    matched the path only, and a path such as /memories/{memory_id} has one route per method."""
    allowed = []
    for method in _METHODS:
        scope = {**request.scope, "method": method}
        if any(route.matches(scope)[0] is Match.FULL for route in request.app.router.routes):
            allowed.append(method)
    return ", ".join(allowed)


async def _database_error(request: Request, exc: Exception) -> JSONResponse:
    """503 while the database cannot be reached (the request changed nothing); 409 when a
    row the request wrote refers to, or changes, one erased while it ran; else a 500."""
    if _erased_meanwhile(exc):
        erased = Conflict(
            "Something this request refers to (an agent, a session, a memory) was erased while "
            "it ran, and nothing was stored; read it again before retrying."
        )
        return await _domain_error(request, erased)
    if not database_unavailable(exc):
        return await _unexpected_error(request, exc)
    log.warning("request.database_unavailable", path=request.url.path, error=str(exc)[:500])
    unavailable = ServiceUnavailable(
        f"The database cannot serve this request right now; retry in {RETRY_AFTER_SECONDS} s. "
        "If it was a write, retry it with the same Idempotency-Key: should the database have "
        "stored it before it went away, the retry returns that answer instead of a second copy."
    )
    return await _domain_error(request, unavailable)


def _erased_meanwhile(exc: Exception) -> bool:
    """The request read a row, and a concurrent erasure deleted it before the request's write:
    a foreign key violation (a new row refers to it), or an update that found it gone."""
    if isinstance(exc, StaleDataError):
        return True
    orig = exc.orig if isinstance(exc, DBAPIError) else None
    return getattr(orig, "sqlstate", None) == _FOREIGN_KEY_VIOLATION


def unexpected_problem(path: str) -> JSONResponse:
    """The 500 of a request that failed for a reason the service did not expect (logged)."""
    log.exception("request.failed", path=path)
    return problem_response(
        500,
        "Internal server error",
        "The service failed to handle this request; it has been logged. Retrying may help.",
        path,
    )


async def _unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    return unexpected_problem(request.url.path)


def install_error_handlers(app: FastAPI) -> None:
    """Render domain, validation, routing and database errors as problem+json (any other
    error: `middleware.UnexpectedErrorMiddleware`)."""
    app.add_exception_handler(SQLAlchemyError, _database_error)
    app.add_exception_handler(OSError, _database_error)
    app.add_exception_handler(DomainError, _domain_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
