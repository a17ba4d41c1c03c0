"""Retries: a write whose answer was lost is sent again with its Idempotency-Key and stored
once; calls that are not idempotent are not repeated once they reached the service."""

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest
from context_engine_client import AsyncContextEngine, Retries

from app.runtime import Runtime
from tests.client.conftest import QUICK, app_transport
from tests.factories import Tenancy


class Faulty(httpx.AsyncBaseTransport):
    """The app's transport with faults on the network between client and service: the first
    `count` requests that `hit` selects are lost, before the service sees them (`when="connect"`)
    or after it answered (`when="answer"`)."""

    def __init__(
        self, inner: httpx.AsyncBaseTransport, hit: Callable[[httpx.Request], bool], when: str
    ) -> None:
        self.inner, self.hit, self.when = inner, hit, when
        self.count = 1
        self.seen: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        faulty = self.count > 0 and self.hit(request)
        if faulty and self.when == "connect":
            self.count -= 1
            raise httpx.ConnectError("connection refused", request=request)
        response = await self.inner.handle_async_request(request)
        if faulty:
            self.count -= 1
            await response.aread()
            raise httpx.ReadError("connection reset before the answer arrived", request=request)
        return response


def _posts_to(suffix: str) -> Callable[[httpx.Request], bool]:
    return lambda request: request.method == "POST" and request.url.path.endswith(suffix)


@pytest.fixture
async def faulty(
    runtime: Runtime, tenancy: Tenancy
) -> AsyncIterator[tuple[Faulty, AsyncContextEngine]]:
    transport = Faulty(app_transport(runtime), _posts_to("/memories"), "answer")
    async with AsyncContextEngine(
        "http://test", tenancy.key, retries=QUICK, transport=transport
    ) as engine:
        await engine.put_agent("newton", identity={"name": "Newton"})
        yield transport, engine


async def test_a_write_whose_answer_was_lost_is_stored_once(
    faulty: tuple[Faulty, AsyncContextEngine],
) -> None:
    transport, engine = faulty
    written = await engine.remember("newton", "fact", content="The cache is Redis 7.")
    first, second = [r for r in transport.seen if r.url.path.endswith("/memories")]
    assert first.headers["Idempotency-Key"] == second.headers["Idempotency-Key"]
    page = await engine.memories("newton")
    assert [m.id for m in page.items] == [written.id]


async def test_an_append_whose_answer_was_lost_is_stored_once(
    faulty: tuple[Faulty, AsyncContextEngine],
) -> None:
    transport, engine = faulty
    transport.hit, transport.count = _posts_to("/messages"), 1
    appended = await engine.append("newton", "chat-1", [{"role": "user", "content": "Hello"}])
    assert [m.seq for m in appended.messages] == [0]
    assert (await engine.get_session("newton", "chat-1")).messages == 1


async def test_a_build_whose_answer_was_lost_is_stored_once(
    faulty: tuple[Faulty, AsyncContextEngine],
) -> None:
    transport, engine = faulty
    transport.hit, transport.count = _posts_to("/context/build"), 1
    built = await engine.build("newton", "What cache do we use?")
    first, second = [r for r in transport.seen if r.url.path == "/context/build"]
    assert first.headers["Idempotency-Key"] == second.headers["Idempotency-Key"]
    listed = await engine.request("GET", "/context", params={"agent_id": "newton"})
    assert [item["context_id"] for item in listed.json()["items"]] == [built.context_id]


async def test_a_feedback_whose_answer_was_lost_is_recorded_once(
    faulty: tuple[Faulty, AsyncContextEngine],
) -> None:
    """Sent again with its key, feedback gets the first answer, not 409 (already recorded)."""
    transport, engine = faulty
    built = await engine.build("newton", "What cache do we use?")
    transport.hit, transport.count = _posts_to("/feedback"), 1
    recorded = await engine.feedback(built.context_id, reply="Redis.")
    assert len([r for r in transport.seen if r.url.path.endswith("/feedback")]) == 2
    assert recorded.context_id == built.context_id


async def test_a_build_that_never_left_is_sent_again(
    faulty: tuple[Faulty, AsyncContextEngine],
) -> None:
    transport, engine = faulty
    transport.hit, transport.count, transport.when = _posts_to("/context/build"), 1, "connect"
    built = await engine.build("newton", "What cache do we use?")
    assert built.agent_id == "newton"
    assert len([r for r in transport.seen if r.url.path == "/context/build"]) == 2


def _answer(
    status: int, method: str = "GET", **headers: str
) -> tuple[httpx.Request, httpx.Response]:
    retry_after = {"Retry-After": headers.pop("retry_after")} if "retry_after" in headers else {}
    request = httpx.Request(method, "http://test/agents/newton", headers=headers)
    return request, httpx.Response(status, headers=retry_after, request=request)


def test_retry_after_is_honoured_in_seconds_and_as_a_date() -> None:
    retries = Retries(attempts=5, backoff=0.5, max_backoff=8.0, max_wait=60.0)
    request, response = _answer(503, retry_after="2")
    assert retries.delay(request, response, 0) == 2.0
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    request, response = _answer(429, retry_after=later)
    assert 25.0 < (retries.delay(request, response, 0) or 0.0) <= 30.0
    request, response = _answer(503, retry_after="3600")
    assert retries.delay(request, response, 0) == 60.0


def test_backoff_doubles_and_attempts_run_out() -> None:
    retries = Retries(attempts=4, backoff=0.5, max_backoff=1.5)
    request, response = _answer(503)
    assert [retries.delay(request, response, n) for n in range(4)] == [0.5, 1.0, 1.5, None]


def test_only_idempotent_calls_are_retried_after_an_answer() -> None:
    retries = Retries()
    post, unavailable = _answer(503, "POST")
    assert retries.delay(post, unavailable, 0) is None
    keyed, unavailable = _answer(503, "POST", **{"Idempotency-Key": "k-1"})
    assert retries.delay(keyed, unavailable, 0) == 0.5
    get, not_found = _answer(404)
    assert retries.delay(get, not_found, 0) is None
    assert retries.delay(post, httpx.ConnectError("refused"), 0) == 0.5
    assert retries.delay(post, httpx.ReadTimeout("slow"), 0) is None
    assert retries.delay(get, httpx.ReadTimeout("slow"), 0) == 0.5
