"""search_memory: the agent's memories by their words and by their meaning, and with a session
its earlier messages no longer in the context; what it shows counts as referenced."""

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from app.core.worker import Worker
from app.providers.container import Providers
from app.providers.errors import ProviderUnavailable
from tests.context.history.test_history_api import conversation
from tests.context.history.test_recall_api import PASSWORD, QUESTION
from tests.factories import Tenancy, put_agent, write
from tests.tools.calls import memory_ids, remember, result

VIOLIN = "My daughter starts violin lessons next month; she picked the teacher herself."
FLIGHT = "Our flight to Lisbon lands at 7pm on Friday."
ROTATION = "The staging database password rotates every Tuesday at 09:00."


async def agent_with_memories(client: httpx.AsyncClient, tenancy: Tenancy) -> dict[str, str]:
    await put_agent(client, tenancy)
    return {text: await remember(client, tenancy, text) for text in (VIOLIN, FLIGHT, ROTATION)}


async def test_a_memory_is_found_by_its_words(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    ids = await agent_with_memories(client, tenancy)  # no worker ran: no vectors yet
    await put_agent(client, tenancy, "ada")  # another agent's memories are not searched
    await write(client, tenancy, {"kind": "fact", "content": ROTATION}, agent="ada")
    found = await result(client, tenancy, "search_memory", {"query": "staging password"})
    assert found["name"] == "search_memory"
    assert memory_ids(found) == [ids[ROTATION]]
    assert f"[memory {ids[ROTATION]}] fact, " in found["content"]
    assert ROTATION in found["content"]
    assert "Lisbon" not in found["content"]
    assert "expand_memory(memory_id)" in found["content"]
    assert (found["left_out"], found["cut"], found["tool_call_id"], found["message"]) == (
        0,
        False,
        None,
        None,
    )
    # Nothing matches: the model is told so.
    found = await result(client, tenancy, "search_memory", {"query": "kubernetes ingress"})
    assert found["references"] == []
    assert 'No memory matches "kubernetes ingress".' in found["content"]


async def test_a_memory_is_found_by_its_meaning(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    ids = await agent_with_memories(client, tenancy)
    await worker.drain()
    # No word in common with the violin memory: only its meaning finds it.
    found = await result(
        client, tenancy, "search_memory", {"query": "What instrument will my child learn?"}
    )
    assert memory_ids(found)[0] == ids[VIOLIN]
    assert VIOLIN in found["content"]
    # Kinds narrow the search.
    found = await result(
        client,
        tenancy,
        "search_memory",
        {"query": "What instrument will my child learn?", "kinds": ["decision", "episode"]},
    )
    assert memory_ids(found) == []


async def test_shown_memories_count_as_referenced(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    ids = await agent_with_memories(client, tenancy)
    await result(client, tenancy, "search_memory", {"query": "staging password"})
    record = await client.get(f"/memories/{ids[ROTATION]}", headers=tenancy.headers)
    assert record.json()["reference_count"] == 1
    assert record.json()["last_referenced_at"] is not None
    untouched = await client.get(f"/memories/{ids[FLIGHT]}", headers=tenancy.headers)
    assert untouched.json()["reference_count"] == 0


def with_password(length: int) -> list[dict[str, Any]]:
    said = conversation(length)
    said[3] = PASSWORD
    return said


async def test_an_earlier_message_of_the_session_is_found(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    path = "/agents/newton/sessions/chat-1/messages"
    appended = await client.post(
        path, json={"messages": with_password(40)}, headers=tenancy.headers
    )
    assert appended.status_code == 201, appended.text
    message_id = appended.json()["messages"][3]["id"]
    arguments = {"query": QUESTION, "session_id": "chat-1"}
    found = await result(client, tenancy, "search_memory", json.dumps(arguments))
    assert found["references"] == [{"kind": "message", "id": message_id}]
    assert "Earlier messages of session chat-1:" in found["content"]
    assert f"- [message seq 3] user, 2026-11-20: {PASSWORD['content']}" in found["content"]
    assert 'No memory matches "' in found["content"]
    # Without the session no message is searched; another session has none.
    found = await result(client, tenancy, "search_memory", {"query": QUESTION})
    assert "Earlier messages" not in found["content"]
    other = {"query": QUESTION, "session_id": "chat-2"}
    found = await result(client, tenancy, "search_memory", other)
    assert found["references"] == []
    assert "Session chat-2 has no messages." in found["content"]


async def test_messages_a_build_always_keeps_are_not_searched(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    """The fresh tail (the agent's window default here) is in every context already."""
    response = await client.put(
        "/agents/newton",
        json={"identity": {"name": "Newton"}, "default_window": {"fresh_tail": 40}},
        headers=tenancy.headers,
    )
    assert response.status_code == 200, response.text
    path = "/agents/newton/sessions/chat-1/messages"
    appended = await client.post(
        path, json={"messages": with_password(40)}, headers=tenancy.headers
    )
    assert appended.status_code == 201, appended.text
    arguments = {"query": QUESTION, "session_id": "chat-1"}
    found = await result(client, tenancy, "search_memory", arguments)
    assert found["references"] == []
    assert "No earlier message of session chat-1 matches" in found["content"]


async def test_an_earlier_message_is_found_by_its_meaning_once_embedded(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    said = conversation(40)
    said[5] = {"role": "user", "content": VIOLIN}
    path = "/agents/newton/sessions/chat-1/messages"
    appended = await client.post(path, json={"messages": said}, headers=tenancy.headers)
    assert appended.status_code == 201, appended.text
    arguments = {"query": "What instrument will my child learn?", "session_id": "chat-1"}
    found = await result(client, tenancy, "search_memory", arguments)
    assert found["references"] == []  # no vector yet, and no word in common
    await worker.drain()
    found = await result(client, tenancy, "search_memory", arguments)
    message_id = appended.json()["messages"][5]["id"]
    assert found["references"] == [{"kind": "message", "id": message_id}]
    assert "- [message seq 5] user, " in found["content"]


@pytest.fixture
def stop_embedder(providers: Providers, monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Call it to make every query embedding fail as when the provider is down."""

    async def unavailable(texts: object, *, deadline: float | None = None) -> list[list[float]]:
        raise ProviderUnavailable("the embedder is down")

    return lambda: monkeypatch.setattr(providers.embedder, "embed_queries", unavailable)


async def test_without_the_embedder_memories_are_found_by_words(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker, stop_embedder: Callable[[], None]
) -> None:
    ids = await agent_with_memories(client, tenancy)
    await worker.drain()
    stop_embedder()
    found = await result(client, tenancy, "search_memory", {"query": "staging password"})
    assert memory_ids(found) == [ids[ROTATION]]
    assert (
        "(Matched by words only: search by meaning is unavailable right now.)" in (found["content"])
    )
    found = await result(
        client, tenancy, "search_memory", {"query": "What instrument will my child learn?"}
    )
    assert memory_ids(found) == []
