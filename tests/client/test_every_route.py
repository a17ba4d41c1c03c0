"""The Python clients have a typed method for every operation of the OpenAPI document (both
the sync and the async one), and the methods added for the routes beyond the common loop work
against the service."""

import inspect
import json
import re
from datetime import UTC, datetime
from typing import TypeVar

import pytest
from context_engine_client import AsyncContextEngine, Conflict, ContextEngine, NotFound, models
from context_engine_client.core import Call

from tests.process.launcher import REPO

T = TypeVar("T")

# Each operation of openapi/openapi.json, and the method that calls it.
METHODS = {
    ("GET", "/healthz"): "health",
    ("GET", "/readyz"): "ready",
    ("GET", "/metrics"): "metrics",
    ("GET", "/agents"): "agents",
    ("PUT", "/agents/{agent_id}"): "put_agent",
    ("GET", "/agents/{agent_id}"): "get_agent",
    ("DELETE", "/agents/{agent_id}"): "delete_agent",
    ("PUT", "/agents/{agent_id}/working-memory"): "put_working_memory",
    ("GET", "/agents/{agent_id}/frames"): "frames",
    ("PUT", "/agents/{agent_id}/frames/{frame_name}"): "put_frame",
    ("DELETE", "/agents/{agent_id}/frames/{frame_name}"): "delete_frame",
    ("POST", "/agents/{agent_id}/memories"): "remember",
    ("GET", "/agents/{agent_id}/memories"): "memories",
    ("POST", "/agents/{agent_id}/memories/batch"): "remember_batch",
    ("GET", "/agents/{agent_id}/memories/search"): "search",
    ("GET", "/memories/{memory_id}"): "get_memory",
    ("PATCH", "/memories/{memory_id}"): "update_memory",
    ("DELETE", "/memories/{memory_id}"): "delete_memory",
    ("GET", "/memories/{memory_id}/history"): "memory_history",
    ("POST", "/memories/{memory_id}/restore"): "restore",
    ("POST", "/agents/{agent_id}/sessions/{session_id}/messages"): "append",
    ("GET", "/agents/{agent_id}/sessions/{session_id}/messages"): "messages",
    ("GET", "/agents/{agent_id}/sessions/{session_id}"): "get_session",
    ("DELETE", "/agents/{agent_id}/sessions/{session_id}"): "delete_session",
    ("GET", "/agents/{agent_id}/sessions"): "sessions",
    ("POST", "/agents/{agent_id}/sessions/{session_id}/efforts"): "open_effort",
    ("GET", "/agents/{agent_id}/sessions/{session_id}/efforts"): "efforts",
    ("GET", "/agents/{agent_id}/sessions/{session_id}/efforts/search"): "search_efforts",
    ("GET", "/agents/{agent_id}/sessions/{session_id}/efforts/{effort_id}"): "get_effort",
    (
        "POST",
        "/agents/{agent_id}/sessions/{session_id}/efforts/{effort_id}/conclude",
    ): "conclude_effort",
    (
        "POST",
        "/agents/{agent_id}/sessions/{session_id}/efforts/{effort_id}/expand",
    ): "expand_effort",
    ("POST", "/context/build"): "build",
    ("POST", "/context/refresh"): "refresh",
    ("POST", "/context/expand"): "expand",
    ("GET", "/context"): "builds",
    ("GET", "/context/{context_id}"): "get_context",
    ("POST", "/context/{context_id}/feedback"): "feedback",
    ("GET", "/agents/{agent_id}/tools"): "tools",
    ("POST", "/agents/{agent_id}/tools/{name}"): "call_tool",
    ("POST", "/agents/{agent_id}/retention/run"): "run_retention",
    ("GET", "/agents/{agent_id}/retention/changes"): "retention_changes",
    ("GET", "/agents/{agent_id}/retention/limits"): "retention_limits",
    ("PUT", "/agents/{agent_id}/retention/limits"): "put_retention_limits",
}


def test_every_operation_has_a_method_in_both_clients() -> None:
    document = json.loads((REPO / "openapi" / "openapi.json").read_text(encoding="utf-8"))
    operations = {
        (method.upper(), path)
        for path, item in document["paths"].items()
        for method in item
        if method in {"get", "put", "post", "patch", "delete"}
    }
    assert operations == set(METHODS), "a route without a client method, or a stale entry"
    for name in METHODS.values():
        assert callable(getattr(ContextEngine, name)), name
        assert inspect.iscoroutinefunction(getattr(AsyncContextEngine, name)), name


async def test_the_routes_beyond_the_common_loop(engine: AsyncContextEngine) -> None:
    agent = "setup"
    await engine.put_agent(agent, identity={"name": "Setup"})
    assert (await engine.health()).status == "ok"
    assert (await engine.ready()).status == "ready"
    assert "ce_http_requests_total" in await engine.metrics()

    written = await engine.remember_batch(
        agent,
        [
            {
                "kind": "fact",
                "content": "The payments service pages Kwame.",
                "metadata": {"service": "payments"},
            },
            {"kind": "fact", "content": "Search runs on OpenSearch 2.11."},
        ],
    )
    payments = written.memories[0].id
    typed = models.DecisionCreate(
        kind="decision", decision="Keep search on OpenSearch for now", confidence=0.6
    )
    chosen = await engine.remember(agent, typed)
    assert (chosen.kind, chosen.fields["decision"]) == ("decision", typed.decision)
    with pytest.raises(TypeError):
        await engine.remember(agent, typed, content="both at once")
    found = await engine.memories(agent, metadata={"service": "payments"})
    assert [m.id for m in found.items] == [payments]
    every = [m.id async for m in engine.iter_memories(agent, kind="fact", limit=1)]
    assert sorted(every) == sorted(m.id for m in written.memories)

    with_memory = await engine.put_working_memory(agent, {"current_task": "Cut cloud costs"})
    assert with_memory.working_memory.current_task == "Cut cloud costs"
    frame = await engine.put_frame(
        agent, "costs", {"description": "Cutting costs.", "cues": ["bill"]}
    )
    assert frame.name == "costs"
    assert "costs" in {f.name for f in await engine.frames(agent)}
    assert "costs" not in {f.name for f in await engine.delete_frame(agent, "costs")}

    definitions = await engine.tools(agent)
    assert "search_memory" in {d.function.name for d in definitions}
    result = await engine.call_tool(agent, "search_memory", {"query": "who gets paged"})
    assert result.name == "search_memory"

    await _efforts_round(engine, agent)
    await _retention_round(engine, agent)
    with pytest.raises(NotFound):
        await engine.frames("nobody")


async def _efforts_round(engine: AsyncContextEngine, agent: str) -> None:
    """An effort opened, talked in, listed, read, concluded, searched and expanded."""
    opened = await engine.open_effort(agent, "chat-1", "Cost review", goal="Lower the bill")
    await engine.append(agent, "chat-1", [{"role": "user", "content": "Start with compute."}])
    assert [e.effort_id for e in (await engine.efforts(agent, "chat-1")).items] == [
        opened.effort_id
    ]
    assert (await engine.get_effort(agent, "chat-1", opened.effort_id)).title == "Cost review"
    concluded = await engine.conclude_effort(agent, "chat-1", opened.effort_id)
    assert concluded.state == "concluded"
    hits = await engine.search_efforts(agent, "chat-1", "cost review")
    assert opened.effort_id in {hit.effort.effort_id for hit in hits.items}
    expanded = await engine.expand_effort(agent, "chat-1", opened.effort_id)
    assert [m.content for m in expanded.messages] == ["Start with compute."]


async def _retention_round(engine: AsyncContextEngine, agent: str) -> None:
    """Limits set, a run that forgets one memory, its change listed, the memory restored."""
    limits = await engine.put_retention_limits(agent, max_active_memories=2)
    assert (await engine.retention_limits(agent)).own == limits.own
    ran = await engine.run_retention(agent, now=datetime(2027, 3, 1, tzinfo=UTC))
    forgotten = [c.memory_id for c in ran.changes if c.rule == "forgotten"]
    assert len(forgotten) == 1
    changes = await engine.retention_changes(agent, memory_id=forgotten[0])
    assert [c.rule for c in changes.items] == ["forgotten"]
    restored = await engine.restore(forgotten[0])
    assert restored.memory_id == forgotten[0]
    with pytest.raises(Conflict):
        await engine.restore(forgotten[0])  # already back in play


# Arguments that call each method (the ids need only be well formed: nothing is sent).
ID = "00000000-0000-4000-8000-000000000001"
ARGUMENTS: dict[str, tuple[tuple[object, ...], dict[str, object]]] = {
    "health": ((), {}),
    "ready": ((), {}),
    "metrics": ((), {}),
    "agents": ((), {}),
    "put_agent": (("a",), {"identity": {"name": "A"}}),
    "get_agent": (("a",), {}),
    "delete_agent": (("a",), {}),
    "put_working_memory": (("a", {"current_task": "t"}), {}),
    "frames": (("a",), {}),
    "put_frame": (("a", "f", {"description": "d"}), {}),
    "delete_frame": (("a", "f"), {}),
    "remember": (("a", "fact"), {"content": "c"}),
    "memories": (("a",), {"kind": "fact"}),
    "remember_batch": (("a", [{"kind": "fact", "content": "c"}]), {}),
    "search": (("a", "q"), {}),
    "get_memory": ((ID,), {}),
    "update_memory": ((ID, {"action": "confirm"}), {}),
    "delete_memory": ((ID,), {}),
    "memory_history": ((ID,), {}),
    "restore": ((ID,), {}),
    "append": (("a", "s", [{"role": "user", "content": "c"}]), {}),
    "messages": (("a", "s"), {}),
    "get_session": (("a", "s"), {}),
    "delete_session": (("a", "s"), {}),
    "sessions": (("a",), {}),
    "open_effort": (("a", "s", "t"), {}),
    "efforts": (("a", "s"), {}),
    "search_efforts": (("a", "s", "q"), {}),
    "get_effort": (("a", "s", "e_1"), {}),
    "conclude_effort": (("a", "s", "e_1"), {}),
    "expand_effort": (("a", "s", "e_1"), {}),
    "build": (("a", "input"), {}),
    "refresh": ((ID, "input"), {}),
    "expand": ((ID,), {}),
    "builds": (("a",), {}),
    "get_context": ((ID,), {}),
    "feedback": ((ID,), {"reply": "r"}),
    "tools": (("a",), {}),
    "call_tool": (("a", "search_memory", {"query": "q"}), {}),
    "run_retention": (("a",), {}),
    "retention_changes": (("a",), {}),
    "retention_limits": (("a",), {}),
    "put_retention_limits": (("a",), {"max_active_memories": 1}),
}


def _route(call: Call[object]) -> tuple[str, str]:
    """The operation of METHODS whose path template the call's path fits."""
    for (method, template), _ in METHODS.items():
        pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$"
        if method == call.method and re.match(pattern, call.path):
            return method, template
    raise AssertionError(f"{call.method} {call.path} is no operation of the document")


class SyncRecorder(ContextEngine):
    """The sync client, its calls kept instead of sent."""

    sent: list[Call[object]]

    def send(self, call: Call[T]) -> T:
        self.sent.append(call)
        return None  # type: ignore[return-value]


class AsyncRecorder(AsyncContextEngine):
    """The async client, its calls kept instead of sent."""

    sent: list[Call[object]]

    async def send(self, call: Call[T]) -> T:
        self.sent.append(call)
        return None  # type: ignore[return-value]


async def test_each_method_calls_its_own_route_in_both_clients() -> None:
    assert set(ARGUMENTS) == set(METHODS.values())
    sync, asynchronous = SyncRecorder("http://service"), AsyncRecorder("http://service")
    for operation, name in METHODS.items():
        args, kwargs = ARGUMENTS[name]
        sync.sent, asynchronous.sent = [], []
        getattr(sync, name)(*args, **kwargs)
        await getattr(asynchronous, name)(*args, **kwargs)
        assert [_route(call) for call in sync.sent] == [operation], name
        assert [(c.method, c.path) for c in asynchronous.sent] == [
            (c.method, c.path) for c in sync.sent
        ], name
    sync.close()
    await asynchronous.aclose()
