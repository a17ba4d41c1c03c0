"""An unexpected error answers 500 problem+json and costs nothing else: the same keep-alive
connection serves the next request. Over real HTTP, with the server the service runs (uvicorn,
httptools), since only a real connection can be dropped."""

import http.client
import json
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from fastapi import FastAPI

from app.core.config import Settings
from app.main import create_app


def _failing_app(settings: Settings) -> FastAPI:
    """The service's app with one route that fails as a bug would."""
    app = create_app(settings, bootstrap_key=False)

    async def broken() -> None:
        raise RuntimeError("a bug")

    app.add_api_route("/broken", broken)
    return app


@pytest.fixture
def served(settings: Settings) -> Iterator[int]:
    """The port of the app served by uvicorn in a thread (no lifespan: no route here needs
    the database)."""
    config = uvicorn.Config(
        _failing_app(settings),
        host="127.0.0.1",
        port=0,
        http="httptools",
        lifespan="off",
        log_level="critical",
        access_log=False,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive(), "the server did not start"
        assert time.monotonic() < deadline, "the server did not start in time"
        time.sleep(0.01)
    yield int(server.servers[0].sockets[0].getsockname()[1])
    server.should_exit = True
    thread.join(10)


def test_a_failed_request_does_not_cost_the_next_one(served: int) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", served, timeout=10)
    connection.request("GET", "/broken")
    failed = connection.getresponse()
    problem = json.loads(failed.read())
    assert failed.status == 500
    assert failed.getheader("content-type") == "application/problem+json"
    assert problem["status"] == 500
    assert problem["instance"] == "/broken"
    assert failed.getheader("x-request-id")  # the request's id, to find its log line
    # The next, unrelated request on the same connection is answered.
    connection.request("GET", "/healthz")
    healthy = connection.getresponse()
    assert healthy.status == 200, healthy.read()
    assert json.loads(healthy.read())["status"] == "ok"
    connection.close()
