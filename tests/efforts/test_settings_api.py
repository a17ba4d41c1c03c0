"""The thresholds are settings (CE_CONTEXT__EFFORTS__*), and a tight window holds: summaries
that do not fit are dropped, the note says so, and the promise is kept."""

from collections.abc import AsyncIterator

import httpx
import pytest

from app.core.context_config import ContextSettings, EffortSettings
from app.core.worker import Worker
from app.main import attach_runtime, create_app
from app.providers.container import Providers
from app.runtime import Runtime, build_handlers
from tests.context.history.test_summaries_api import keeps_the_promise
from tests.efforts.helpers import WINDOW, act, build, open_effort, say, shown
from tests.factories import Tenancy, put_agent

STRICT = EffortSettings(
    summary_eviction_turns=1, concluded_grace_turns=0, ambient_window=2, expanded_decay_turns=1
)


@pytest.fixture
async def strict(runtime: Runtime) -> AsyncIterator[tuple[httpx.AsyncClient, Worker]]:
    """A client and worker of a service whose efforts settings are STRICT."""
    context = runtime.settings.context.model_copy(update={"efforts": STRICT})
    settings = runtime.settings.model_copy(update={"context": context})
    worker = Worker(
        runtime.database.sessionmaker, build_handlers(runtime.providers, settings), settings.worker
    )
    app = create_app(settings)
    attach_runtime(app, Runtime(settings, runtime.database, runtime.providers, worker))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client, worker


async def test_the_thresholds_are_settings(
    strict: tuple[httpx.AsyncClient, Worker], tenancy: Tenancy, providers: Providers
) -> None:
    client, worker = strict
    assert isinstance(ContextSettings().efforts, EffortSettings)
    await put_agent(client, tenancy)
    for i in range(4):
        await say(client, tenancy, ("user", f"Small talk {i}."), ("assistant", "Sure."))
    await open_effort(client, tenancy, "Ledger migration")
    await say(client, tenancy, ("user", "Move the ledger to PostgreSQL."), ("assistant", "Done."))
    await act(client, tenancy, "e_1", "conclude")  # at turn 5
    await worker.drain()
    await say(client, tenancy, ("user", "Small talk 5."))  # turn 6: referenced 1 turn ago
    result = await build(client, tenancy, providers)
    assert shown(result) == {"e_1": "summary"}
    ambient = [m["content"] for m in result["messages"]]
    assert ambient == ["Small talk 3.", "Sure.", "Small talk 5."]  # the last 2 exchanges
    await say(client, tenancy, ("assistant", "Ok."), ("user", "Small talk 6."))  # turn 7
    later = await build(client, tenancy, providers)
    assert shown(later) == {"e_1": "evicted"}
    assert "1 older effort is still stored" in later["context"]
    # Expanded: raw at its turn, collapsed by the next one (1 turn without a reference).
    assert (await act(client, tenancy, "e_1", "expand")).status_code == 200
    assert shown(await build(client, tenancy, providers)) == {"e_1": "raw"}
    await say(client, tenancy, ("user", "Small talk 7."))
    assert shown(await build(client, tenancy, providers)) == {"e_1": "summary"}


async def test_a_tight_window_drops_summaries_and_keeps_the_promise(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker, providers: Providers
) -> None:
    await put_agent(client, tenancy)
    for n in range(1, 7):
        await open_effort(client, tenancy, f"Topic number {n} of the quarter")
        for k in range(2):  # summaries of about 80 tokens: a long line for each message
            said = f"Effort {n}, point {k}: " + ", ".join(
                f"replica {r} was backed up" for r in range(9)
            )
            await say(client, tenancy, ("user", said + "."), ("assistant", said + "!"))
        await act(client, tenancy, f"e_{n}", "conclude")
    await worker.drain()
    await say(client, tenancy, ("user", "Where are we?"))
    window = WINDOW | {"total": 400, "system_reserve": 0, "tools_reserve": 0}
    response = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": "newton", "input": "Where are we?", "model": "gpt-4o",
              "session_id": "work-1", "window": window},
    )  # fmt: skip
    assert response.status_code == 200, response.text
    result = response.json()
    keeps_the_promise(providers, result)
    how = shown(result)
    assert "dropped" in how.values()
    assert "summary" in how.values()
    assert result["history"]["efforts"]["memory_note"]
    assert "## Memory" in result["context"]
    assert result["messages"][-1]["content"] == "Where are we?"
