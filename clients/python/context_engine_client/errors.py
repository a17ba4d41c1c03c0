"""The service's problem+json answers (RFC 9457) as typed exceptions."""

from __future__ import annotations

import httpx
from pydantic import ValidationError as PydanticValidationError

from context_engine_client.models import Problem, ProblemLocation

# Errors before the request left this machine: it was never processed, whatever its method.
NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


class ContextEngineError(Exception):
    """An error answer of the service: its status, title, detail and the fields at fault."""

    def __init__(self, problem: Problem, response: httpx.Response | None = None) -> None:
        super().__init__(f"{problem.status} {problem.title}: {problem.detail}")
        self.problem = problem
        self.response = response

    @property
    def status(self) -> int:
        return self.problem.status

    @property
    def title(self) -> str:
        return self.problem.title

    @property
    def detail(self) -> str:
        return self.problem.detail

    @property
    def errors(self) -> list[ProblemLocation]:
        """Each field at fault (a 422's invalid inputs; a 409's stored fields in conflict)."""
        return self.problem.errors or []

    @property
    def fields(self) -> list[tuple[str | int, ...]]:
        """Where each fault is, e.g. `("body", "content")`."""
        return [tuple(error.loc) for error in self.errors]


class Unauthorized(ContextEngineError):
    """401 or 403: no key, an unknown or revoked key."""


class NotFound(ContextEngineError):
    """404: no such agent, memory, session or context for this key's tenant."""


class Gone(NotFound):
    """410: the memory was erased; `problem` says its kind and when (`erased_at`)."""


class Conflict(ContextEngineError):
    """409: the request conflicts with stored state (e.g. an action the memory does not take)."""


class ValidationError(ContextEngineError):
    """422: invalid input; `fields` names each field at fault."""


class RateLimited(ContextEngineError):
    """429, after the client's retries."""


class Unavailable(ContextEngineError):
    """503: the database is unreachable, after the client's retries."""


class Unreachable(Unavailable):
    """The service could not be reached (connection refused or not made in time), after the
    client's retries: the request was never processed. `__cause__` is httpx's error."""


class NoAnswer(ContextEngineError):
    """The request was sent but no answer came (timed out, connection cut): whether the service
    processed it is unknown. A write with an Idempotency-Key is safe to send again; one without
    may be stored twice. `__cause__` is httpx's error."""


def transport_error(request: httpx.Request, exc: Exception) -> ContextEngineError:
    """The error of a request that got no answer: what was tried, and what to check."""
    tried = f"{request.method} {request.url}"
    if isinstance(exc, NOT_SENT):
        detail = (
            f"{tried} could not connect ({exc!r}): is the service running there? (`make run` "
            "serves on http://127.0.0.1:8000; set CE_URL otherwise.)"
        )
        return Unreachable(_problem(request, "Service unreachable", 503, detail))
    detail = (
        f"{tried} got no answer ({exc!r}); whether it was processed is unknown. A longer "
        "timeout (`timeout=`, `with_timeout`) may help."
    )
    return NoAnswer(_problem(request, "No answer", 504, detail))


def _problem(request: httpx.Request, title: str, status: int, detail: str) -> Problem:
    return Problem(
        type="about:blank", title=title, status=status, detail=detail, instance=request.url.path
    )


BY_STATUS: dict[int, type[ContextEngineError]] = {
    401: Unauthorized,
    403: Unauthorized,
    404: NotFound,
    409: Conflict,
    410: Gone,
    422: ValidationError,
    429: RateLimited,
    503: Unavailable,
}


def problem_of(response: httpx.Response) -> Problem:
    """The problem the response carries; one made of its status when its body is not one."""
    try:
        return Problem.model_validate_json(response.content)
    except PydanticValidationError:
        reason = response.reason_phrase or "Error"
        text = response.text[:500]
        return Problem(
            type="about:blank",
            title=reason,
            status=response.status_code,
            detail=text or reason,
            instance=response.request.url.path,
        )


def error_for(response: httpx.Response) -> ContextEngineError:
    """The exception of an error response (4xx, 5xx)."""
    kind = BY_STATUS.get(response.status_code, ContextEngineError)
    return kind(problem_of(response), response)
