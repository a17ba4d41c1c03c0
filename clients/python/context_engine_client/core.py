"""What the sync and async clients share: where the service is, one call, and when to retry."""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Generic, Protocol, TypeVar

import httpx

from context_engine_client.errors import NOT_SENT, error_for
from context_engine_client.models import IDEMPOTENT_WRITES

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)  # a call of a page of agents is a call of a page

DEFAULT_URL = "http://127.0.0.1:8000"  # `make run` / `python -m app serve`
URL_ENV, KEY_ENV = "CE_URL", "CE_API_KEY"
IDEMPOTENCY_HEADER = "Idempotency-Key"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT"})  # repeating them changes nothing more
RETRY_STATUSES = frozenset({429, 503})


def _template(path: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$")


_KEYED_WRITES = [(method, _template(path)) for method, path in IDEMPOTENT_WRITES]


def takes_idempotency_key(method: str, path: str) -> bool:
    """Whether the service honours an Idempotency-Key on this route (from its OpenAPI document)."""
    return any(method == m and pattern.match(path) for m, pattern in _KEYED_WRITES)


def base_url_of(base_url: str | None) -> str:
    return base_url or os.environ.get(URL_ENV) or DEFAULT_URL


def headers_of(api_key: str | None) -> dict[str, str]:
    """The client's own headers: the key from the argument, else from CE_API_KEY."""
    key = api_key or os.environ.get(KEY_ENV)
    headers = {"Accept": "application/json, application/problem+json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def decode(model: Callable[[bytes], T]) -> Callable[[httpx.Response], T]:
    """Read a response's JSON body with a model's `model_validate_json`."""
    return lambda response: model(response.content)


def no_body(response: httpx.Response) -> None:
    return None


@dataclass(frozen=True)
class Call(Generic[T_co]):
    """One request to the service and how to read its answer."""

    method: str
    path: str
    read: Callable[[httpx.Response], T_co]
    body: object = None  # JSON-ready, or None for no body
    params: Mapping[str, str | int | list[str]] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    def request(
        self, http: httpx.Client | httpx.AsyncClient, timeout: float | None = None
    ) -> httpx.Request:
        """The httpx request (with `timeout`: this call's, else the client's); a write the
        service deduplicates gets an Idempotency-Key, kept for every retry of it."""
        headers = dict(self.headers)
        if IDEMPOTENCY_HEADER not in headers and takes_idempotency_key(self.method, self.path):
            headers[IDEMPOTENCY_HEADER] = str(uuid.uuid4())
        return http.build_request(
            self.method,
            self.path,
            json=self.body,
            params=self.params,
            headers=headers,
            timeout=timeout if timeout is not None else http.timeout,
        )

    def result(self, response: httpx.Response) -> T_co:
        """The answer read, or the service's problem raised as its typed exception."""
        if response.is_error:
            raise error_for(response)
        return self.read(response)


@dataclass(frozen=True)
class Retries:
    """How often and how long to retry: `attempts` in all, the delay doubling from `backoff`
    up to `max_backoff`, or what the service's Retry-After asks (up to `max_wait`)."""

    attempts: int = 4
    backoff: float = 0.5
    max_backoff: float = 8.0
    max_wait: float = 60.0

    def delay(
        self, request: httpx.Request, outcome: httpx.Response | Exception, attempt: int
    ) -> float | None:
        """Seconds to wait before trying `request` again after `outcome`, or None: do not.

        An idempotent call (GET, PUT, or a write with an Idempotency-Key) is retried on
        connection errors, 429 and 503; any call when it never reached the service.
        """
        if attempt + 1 >= self.attempts:
            return None
        idempotent = request.method in SAFE_METHODS or IDEMPOTENCY_HEADER in request.headers
        if isinstance(outcome, httpx.Response):
            if outcome.status_code not in RETRY_STATUSES or not idempotent:
                return None
            asked = retry_after(outcome)
            if asked is not None:
                return min(asked, self.max_wait)
        elif not isinstance(outcome, NOT_SENT) and not (
            idempotent and isinstance(outcome, httpx.TransportError)
        ):
            return None
        return float(min(self.backoff * 2.0**attempt, self.max_backoff))


def retry_after(response: httpx.Response) -> float | None:
    """The Retry-After header in seconds (delta-seconds or an HTTP date), if any."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


class SyncSender(Protocol):
    """What the sync client's methods need of it: send a call, read its answer."""

    def send(self, call: Call[T]) -> T: ...


class AsyncSender(Protocol):
    """What the async client's methods need of it: send a call, read its answer."""

    async def send(self, call: Call[T]) -> T: ...
