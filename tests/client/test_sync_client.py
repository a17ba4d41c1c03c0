"""The sync client against the service running as a real process, over real HTTP."""

import os
import signal
import socket
import time
import uuid

import httpx
import pytest
from context_engine_client import (
    ContextEngine,
    NoAnswer,
    NotFound,
    Retries,
    Unavailable,
    Unreachable,
    ValidationError,
)

from tests.client.served import Served
from tests.process.launcher import free_port


@pytest.fixture
def engine(served: Served, monkeypatch: pytest.MonkeyPatch) -> ContextEngine:
    """A client configured as a user does it: from CE_URL and CE_API_KEY."""
    monkeypatch.setenv("CE_URL", served.url)
    monkeypatch.setenv("CE_API_KEY", served.key)
    return ContextEngine()


def test_the_common_loop_over_http(engine: ContextEngine) -> None:
    agent = f"sync-{uuid.uuid4().hex[:8]}"
    with engine:
        engine.put_agent(agent, identity={"name": "Sync"}, model="gpt-4o")
        written = engine.remember(agent, "fact", content="The staging cluster runs in Frankfurt.")
        engine.append(agent, "s-1", [{"role": "user", "content": "Where is staging?"}])
        built = engine.build(agent, "Where does the staging cluster run?", session="s-1")
        assert "Frankfurt" in built.context
        found = engine.search(agent, "Frankfurt staging", kinds=["fact"], limit=5)
        assert [m.memory_id for m in found.memories] == [written.id]
        assert found.memories[0].reason in ("meaning", "words")  # as the worker's timing has it
        assert [m.content for m in built.messages or []] == ["Where is staging?"]
        feedback = engine.feedback(built.context_id, used=[written.id])
        assert feedback.referenced == [written.id]
        assert [b.context_id for b in engine.builds(agent, limit=5).items] == [built.context_id]
        events = engine.memory_history(written.id).events
        assert events[0].event == "written"
        with pytest.raises(NotFound):
            engine.get_session(agent, "no-such-session")
        with pytest.raises(ValidationError) as raised:
            engine.build(agent, "")
        assert raised.value.fields == [("body", "input")]
        assert [s.session_id for s in engine.sessions(agent).items] == ["s-1"]
        assert agent in {a.agent_id for a in engine.agents(limit=200).items}
        engine.delete_session(agent, "s-1")
        assert engine.sessions(agent).items == []
        engine.delete_agent(agent)
        with pytest.raises(NotFound):
            engine.get_memory(written.id)
        with pytest.raises(NotFound):
            engine.delete_agent(agent)


class Recording(httpx.HTTPTransport):
    """Real HTTP, with each answer's status and Retry-After noted."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[tuple[int, str | None]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        self.answers.append((response.status_code, response.headers.get("Retry-After")))
        return response


def test_a_read_waits_out_the_database_restart(served: Served) -> None:
    """The embedded PostgreSQL killed: the service answers 503 with Retry-After until it has
    started it again, and the client's retries of a GET wait for that."""
    retries = Retries(attempts=15, backoff=0.5, max_backoff=2.0, max_wait=5.0)
    recording = Recording()
    with ContextEngine(served.url, served.key, retries=retries, transport=recording) as engine:
        engine.put_agent("restart", identity={"name": "Restart"})
        pid = int((served.data_dir / "pg" / "postmaster.pid").read_text().splitlines()[0])
        os.kill(pid, signal.SIGKILL)
        started = time.monotonic()
        agent = engine.get_agent("restart")
        waited = time.monotonic() - started
    assert agent.agent_id == "restart"
    put, *unavailable, answered = recording.answers
    assert put[0] == 200
    assert answered == (200, None)
    assert unavailable, "the database came back before the read: nothing was retried"
    assert set(unavailable) == {(503, "2")}
    assert waited >= 2.0 * len(unavailable)  # each Retry-After waited out
    print(
        f"\nGET after the database was killed: {len(unavailable)} answers 503, "
        f"then 200 after {waited:.2f} s"
    )


def test_a_service_out_of_reach_is_the_clients_own_error() -> None:
    nowhere = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    engine = ContextEngine(nowhere, "ce_key", retries=Retries(attempts=2, backoff=0.0))
    with engine, pytest.raises(Unreachable) as raised:
        engine.get_agent("newton")
    assert isinstance(raised.value, Unavailable)
    assert isinstance(raised.value.__cause__, httpx.ConnectError)
    assert "is the service running there?" in raised.value.detail


def test_one_call_can_wait_less_than_the_client() -> None:
    silent = socket.create_server(("127.0.0.1", 0))  # connects, never answers
    url = f"http://127.0.0.1:{silent.getsockname()[1]}"
    with silent, ContextEngine(url, "ce_key", retries=Retries(attempts=1)) as engine:
        started = time.monotonic()
        with pytest.raises(NoAnswer) as raised:
            engine.with_timeout(0.2).health()
        waited = time.monotonic() - started
    assert isinstance(raised.value.__cause__, httpx.ReadTimeout)
    assert waited < 10  # the call's 0.2 s, not the client's 30 (room for a loaded machine)
