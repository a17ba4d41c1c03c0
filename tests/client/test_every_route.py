"""The Python clients have a typed method for every operation of the OpenAPI document (both
the sync and the async one), and the methods added for the routes beyond the common loop work
against the service."""

import inspect
import json
from datetime import UTC, datetime

import pytest
from context_engine_client import AsyncContextEngine, Conflict, ContextEngine, NotFound, models

from tests.process.launcher import REPO

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
    with pytest.raises(NotFound):
        await engine.frames("nobody")
