"""POST /context/build with the premise check: "Why did the Kafka cluster crash?" against an
agent whose memories of the cluster record no crash, one that does, and one whose crash fact
was invalidated or superseded; the note inside the budget; the manifest's schema."""

from typing import Any

import httpx
import pytest

from app.core.config import Settings
from app.core.worker import Worker
from app.main import create_app
from tests.context.history.test_history_api import MESSAGES, conversation
from tests.factories import Tenancy, fact, put_agent, write

KAFKA = "Why did the Kafka cluster crash?"
UNSUPPORTED = "Note: no memory records that the Kafka cluster crashed."
CLUSTER = [
    "The Kafka cluster runs three brokers in the ops VPC.",
    "The Kafka cluster was upgraded to version 3.6 in March.",
    "Kafka topics keep seven days of messages.",
]
OTHER = ["Invoices are emailed to customers on the first of the month."]
CRASH = "The Kafka cluster crashed on Monday when the brokers' disks filled up."


async def agent_with(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker, *contents: str
) -> dict[str, str]:
    """An agent with these facts, embedded; their ids by text."""
    await put_agent(client, tenancy)
    ids = {text: (await write(client, tenancy, fact(text)))["id"] for text in contents}
    await worker.drain()
    return ids


async def build(
    client: httpx.AsyncClient, tenancy: Tenancy, text: str = KAFKA, budget: int = 2000
) -> dict[str, Any]:
    response = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": "newton", "input": text, "budget": budget},
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    assert result["totals"]["used"] <= budget
    return result


async def change(client: httpx.AsyncClient, tenancy: Tenancy, memory_id: str, **body: Any) -> None:
    response = await client.patch(f"/memories/{memory_id}", headers=tenancy.headers, json=body)
    assert response.status_code == 200, response.text


async def test_a_crash_no_memory_records_is_an_unsupported_premise(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    ids = await agent_with(client, tenancy, worker, *CLUSTER, *OTHER)
    result = await build(client, tenancy)
    (premise,) = result["premises"]
    assert premise["text"] == "the Kafka cluster crashed"
    assert premise["status"] == "unsupported"
    assert premise["in_context"] is True
    assert set(premise["memory_ids"]) <= {ids[text] for text in CLUSTER}
    assert premise["memory_ids"]
    assert result["context"].endswith("\n\n" + UNSUPPORTED)


async def test_a_recorded_crash_bears_the_premise_out(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await agent_with(client, tenancy, worker, *CLUSTER, CRASH)
    result = await build(client, tenancy)
    assert result["premises"] == []
    assert "Note: no memory records" not in result["context"]


@pytest.mark.parametrize("action", ["invalidate", "supersede"])
async def test_a_premise_resting_on_a_retired_fact_is_contradicted(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker, action: str
) -> None:
    newer = "On Monday the brokers lost their network link for ten minutes."
    ids = await agent_with(client, tenancy, worker, *CLUSTER, CRASH, newer)
    if action == "invalidate":
        await change(client, tenancy, ids[CRASH], action="invalidate")
        expected = [ids[CRASH]]
    else:
        await change(client, tenancy, ids[CRASH], action="supersede", superseded_by=ids[newer])
        expected = [ids[CRASH], ids[newer]]
    result = await build(client, tenancy)
    (premise,) = result["premises"]
    assert (premise["status"], premise["memory_ids"]) == ("contradicted", expected)
    assert result["context"].endswith(premise["note"])
    assert "Kafka cluster crashed on Monday" in premise["note"]


CACHING = [
    "We use Redis for caching API responses in Newton.",
    "The Redis instance runs next to the API servers.",
]
MOVED = "We moved the storage from SQLite to Postgres in March."


async def test_a_close_memory_that_records_no_deprecation_does_not_bear_it_out(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    ids = await agent_with(client, tenancy, worker, *CACHING, *OTHER)
    question = "Since Redis was deprecated, what do we use for caching?"
    result = await build(client, tenancy, question)
    assert max(i["components"]["semantic"] for i in items(result)) >= 0.6  # close, yet silent
    (premise,) = result["premises"]
    assert (premise["text"], premise["status"]) == ("Redis was deprecated", "unsupported")
    assert set(premise["memory_ids"]) == {ids[text] for text in CACHING}
    assert result["context"].endswith("\n\nNote: no memory records that Redis was deprecated.")


async def test_a_recorded_move_bears_out_the_premise_it_was_made(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await agent_with(client, tenancy, worker, *CACHING, MOVED)
    result = await build(client, tenancy, "Since we moved to Postgres, what do we use for caching?")
    assert result["premises"] == []


async def test_how_an_event_happened_is_checked_as_the_event(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await agent_with(client, tenancy, worker, *CLUSTER)
    question = "How did the crash of the Kafka cluster happen?"
    (premise,) = (await build(client, tenancy, question))["premises"]
    assert premise["text"] == "the crash of the Kafka cluster"
    assert premise["note"] == "Note: no memory records the crash of the Kafka cluster."
    await agent_with(client, tenancy, worker, CRASH)
    assert (await build(client, tenancy, question))["premises"] == []


def items(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for layer in result["layers"] for item in layer["items"]]


async def test_a_question_without_a_presupposition_flags_nothing(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await agent_with(client, tenancy, worker, *CLUSTER)
    result = await build(client, tenancy, "How many brokers does the Kafka cluster run?")
    assert result["premises"] == []


async def test_a_note_that_does_not_fit_the_budget_is_left_out_and_said_so(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await agent_with(client, tenancy, worker, *CLUSTER)
    result = await build(client, tenancy, budget=60)
    (premise,) = result["premises"]
    assert premise["in_context"] is False
    assert UNSUPPORTED not in result["context"]


async def test_another_tenants_crash_neither_bears_out_nor_shows(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy, worker: Worker
) -> None:
    ids = await agent_with(client, tenancy, worker, *CLUSTER)
    theirs = await agent_with(client, other_tenancy, worker, CRASH)
    await change(client, other_tenancy, theirs[CRASH], action="invalidate")
    (premise,) = (await build(client, tenancy))["premises"]
    assert premise["status"] == "unsupported"
    assert set(premise["memory_ids"]) <= set(ids.values())


def test_the_manifest_field_is_in_the_openapi_schema(settings: Settings) -> None:
    schemas = create_app(settings).openapi()["components"]["schemas"]
    assert "premises" in schemas["ContextBuildResponse"]["properties"]
    status = schemas["PremiseRead"]["properties"]["status"]
    assert status["enum"] == ["unsupported", "contradicted"]


async def test_with_a_session_the_note_is_in_the_memory_layers_budget(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await agent_with(client, tenancy, worker, *CLUSTER)
    said = conversation(12)
    appended = await client.post(MESSAGES, json={"messages": said}, headers=tenancy.headers)
    assert appended.status_code in (200, 201), appended.text
    window = {"total": 8000, "memory_fraction": 0.15, "learnings_fraction": 0.05}
    response = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": "newton", "input": KAFKA, "session_id": "chat-1", "window": window},
    )
    assert response.status_code == 200, response.text
    result = response.json()
    (premise,) = result["premises"]
    assert premise["in_context"] is True
    assert UNSUPPORTED in result["context"]
    assert result["totals"]["used"] <= result["totals"]["budget"]
    assert result["messages"]
