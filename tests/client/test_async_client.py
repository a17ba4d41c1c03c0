"""The async client against the service: the common loop, typed answers and typed errors."""

import uuid

import pytest
from context_engine_client import (
    AsyncContextEngine,
    Conflict,
    Gone,
    NotFound,
    Unauthorized,
    ValidationError,
)
from context_engine_client.models import ContextBuildResponse, WrittenMemory

from app.runtime import Runtime
from tests.client.conftest import QUICK, app_transport

DEPLOYS = "Deploys to production happen on Tuesdays at 09:00 UTC, never on Fridays."


async def _agent_with_fact(engine: AsyncContextEngine) -> WrittenMemory:
    await engine.put_agent("newton", identity={"name": "Newton"}, model="gpt-4o")
    return await engine.remember("newton", "fact", content=DEPLOYS, confidence=0.9)


async def test_build_with_a_session_gives_the_memory_and_the_history(
    engine: AsyncContextEngine,
) -> None:
    written = await _agent_with_fact(engine)
    appended = await engine.append(
        "newton",
        "chat-1",
        [
            {"role": "user", "content": "When do we deploy?"},
            {"role": "assistant", "content": "Let me check the deploy calendar."},
        ],
    )
    assert [m.seq for m in appended.messages] == [0, 1]
    built = await engine.build(
        "newton",
        "Can we deploy to production on Friday?",
        session="chat-1",
        window={"total": 8000, "system_reserve": 1000, "tools_reserve": 500},
    )
    assert isinstance(built, ContextBuildResponse)
    assert DEPLOYS in built.context
    assert written.id in {item.memory_id for layer in built.layers for item in layer.items}
    found = await engine.search("newton", "deploy production", limit=3)
    assert written.id in [m.memory_id for m in found.memories]
    assert [m.content for m in built.messages or []] == [
        "When do we deploy?",
        "Let me check the deploy calendar.",
    ]
    assert built.history is not None
    assert built.history.window.available == 6500

    reply = "We deploy on Tuesdays at 09:00 UTC, never on Fridays."
    feedback = await engine.feedback(built.context_id, reply=reply)
    assert feedback.referenced == [written.id]
    expanded = await engine.get_memory(written.id)
    assert expanded.reference_count == 1
    assert (await engine.get_context(built.context_id)).context == built.context
    opened = await engine.expand(written.id, context_id=built.context_id)
    assert opened.fields["content"] == DEPLOYS
    refreshed = await engine.refresh(built.context_id, "Why not on Friday?", decision_point=True)
    assert refreshed.refreshed
    assert "decision_point" in refreshed.reasons


async def test_remember_writes_each_kind(engine: AsyncContextEngine) -> None:
    await engine.put_agent("newton", identity={"name": "Newton"})
    decision = await engine.remember(
        "newton", "decision", decision="Chose Postgres", reasons=["one backup"], confidence=0.7
    )
    procedure = await engine.remember(
        "newton", "procedure", name="Deploy", description="Ship it.", steps=["test", "ship"]
    )
    assert (decision.kind, decision.state) == ("decision", "recorded")
    assert procedure.kind == "procedure"
    reviewed = await engine.update_memory(
        decision.id, {"action": "record_outcome", "outcome": "success", "notes": "fast"}
    )
    assert reviewed.state == "reviewed"
    page = await engine.memories("newton", kind="decision")
    assert [m.id for m in page.items] == [decision.id]


async def test_a_decision_is_amended_then_erased_only_when_asked(
    engine: AsyncContextEngine,
) -> None:
    await engine.put_agent("newton", identity={"name": "Newton"})
    decision = await engine.remember(
        "newton", "decision", decision="Chose Redis", outcome="success"
    )
    amended = await engine.update_memory(
        decision.id, {"action": "amend_outcome", "outcome": "failure", "notes": "Too slow."}
    )
    assert (amended.state, amended.outcome) == ("reviewed", "failure")
    with pytest.raises(Conflict) as refused:
        await engine.delete_memory(decision.id)
    assert "?erase=true" in refused.value.detail
    await engine.delete_memory(decision.id, erase=True)
    with pytest.raises(Gone) as gone:
        await engine.get_memory(decision.id)
    assert gone.value.status == 410
    assert isinstance(gone.value, NotFound)  # a caller that handles 404 handles it too


async def test_an_unknown_memory_is_not_found(engine: AsyncContextEngine) -> None:
    with pytest.raises(NotFound) as raised:
        await engine.get_memory(str(uuid.uuid4()))
    assert raised.value.status == 404
    assert raised.value.detail


async def test_an_invalid_field_is_named(engine: AsyncContextEngine) -> None:
    await engine.put_agent("newton", identity={"name": "Newton"})
    with pytest.raises(ValidationError) as raised:
        await engine.remember("newton", "fact", content="x", confidence=1.5)
    assert raised.value.status == 422
    assert [loc[-1] for loc in raised.value.fields] == ["confidence"]
    assert raised.value.fields[0][0] == "body"


async def test_feedback_on_a_memory_not_in_the_context_is_a_conflict(
    engine: AsyncContextEngine,
) -> None:
    written = await _agent_with_fact(engine)
    built = await engine.build("newton", "What is the weather like?", budget=300)
    other = await engine.remember("newton", "fact", content="An unrelated fact about llamas.")
    loaded = {item.memory_id for layer in built.layers for item in layer.items}
    assert other.id not in loaded, written
    with pytest.raises(Conflict) as raised:
        await engine.feedback(built.context_id, used=[other.id])
    assert raised.value.status == 409


async def test_a_missing_key_is_unauthorized(runtime: Runtime) -> None:
    async with AsyncContextEngine(
        "http://test", retries=QUICK, transport=app_transport(runtime)
    ) as anonymous:
        with pytest.raises(Unauthorized) as raised:
            await anonymous.get_agent("newton")
    assert raised.value.status == 401


async def test_the_generic_request_reaches_any_route(engine: AsyncContextEngine) -> None:
    await engine.put_agent("newton", identity={"name": "Newton"})
    response = await engine.request("GET", "/agents/newton/frames")
    assert "decision" in {frame["name"] for frame in response.json()}
    with pytest.raises(NotFound):
        await engine.request("GET", "/agents/nobody/frames")


async def test_agents_and_sessions_are_listed_and_erased(engine: AsyncContextEngine) -> None:
    written = await _agent_with_fact(engine)
    await engine.put_agent("ada", identity={"name": "Ada"})
    await engine.append("newton", "s-1", [{"role": "user", "content": "Deploy today?"}])
    await engine.append("newton", "s-2", [{"role": "user", "content": "And tomorrow?"}])
    agents = await engine.agents(limit=1)
    assert len(agents.items) == 1
    rest = await engine.agents(cursor=agents.next_cursor)
    assert {agents.items[0].agent_id, *(a.agent_id for a in rest.items)} == {"newton", "ada"}
    sessions = await engine.sessions("newton")
    assert [s.session_id for s in sessions.items] == ["s-2", "s-1"]
    assert sessions.items[0].messages == 1

    await engine.delete_session("newton", "s-2")

    assert [s.session_id for s in (await engine.sessions("newton")).items] == ["s-1"]
    with pytest.raises(NotFound):
        await engine.delete_session("newton", "s-2")

    await engine.delete_agent("newton")

    with pytest.raises(NotFound):
        await engine.get_memory(written.id)
    with pytest.raises(NotFound):
        await engine.delete_agent("newton")
    assert [a.agent_id for a in (await engine.agents()).items] == ["ada"]
