"""POST /context/build with a session: an evicted message whose meaning is the input's comes
back once the worker has embedded it, even when it shares no word with the input; an unrelated
one, or one of another session or tenant, never."""

from typing import Any

import httpx
import pytest

from app.core.worker import Worker
from app.providers.container import Providers
from app.providers.errors import ProviderUnavailable
from tests.context.history.test_history_api import MESSAGES, WINDOW, conversation
from tests.context.history.test_recall_api import PASSWORD, QUESTION, assert_promise, build, start
from tests.factories import Tenancy

VIOLIN = {
    "role": "user",
    "content": "My daughter starts violin lessons next month; she picked the teacher herself.",
    "created_at": "2026-11-20T10:00:00Z",
}
FLIGHT = {"role": "user", "content": "Our flight to Lisbon lands at 7pm on Friday."}
# No word in common with VIOLIN (stop words aside): only its meaning can find it.
BY_MEANING = "What instrument will my child learn?"


def with_violin(length: int) -> list[dict[str, Any]]:
    """The test conversation with the violin at seq 3, the flight at seq 6 and the password
    at seq 9: three user messages about three things."""
    said = conversation(length)
    said[3], said[6], said[9] = VIOLIN, FLIGHT, PASSWORD
    return said


async def test_a_message_meaning_the_input_comes_back_once_embedded(
    client: httpx.AsyncClient, tenancy: Tenancy, providers: Providers, worker: Worker
) -> None:
    await start(client, tenancy, with_violin(60))
    before = await build(client, tenancy, BY_MEANING, WINDOW)
    assert before["history"]["recalled"] == []  # no vector yet, and no word in common
    assert "violin" not in before["context"]
    assert_promise(providers, before)

    await worker.drain()
    result = await build(client, tenancy, BY_MEANING, WINDOW)
    history = result["history"]
    (recalled,) = history["recalled"]
    assert (recalled["seq"], recalled["by"]) == (3, "meaning")
    assert recalled["similarity"] >= 0.55
    assert "[seq 3, user, 2026-11-20] " + VIOLIN["content"] in result["context"]
    assert "Lisbon" not in result["context"]  # the unrelated evicted message stays out
    assert "password" not in result["context"]
    assert history["first_kept_seq"] > 9  # all three were evicted
    assert_promise(providers, result)
    # An input of stop words alone is searched by its meaning only.
    result = await build(client, tenancy, "What was it about?", WINDOW)
    assert "recall" in result["timings_ms"]
    assert_promise(providers, result)


async def test_found_by_words_and_meaning_is_both_and_words_work_without_a_vector(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    providers: Providers,
    worker: Worker,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await start(client, tenancy, with_violin(60))
    await worker.drain()
    result = await build(client, tenancy, QUESTION, WINDOW)
    (recalled,) = result["history"]["recalled"]
    assert (recalled["seq"], recalled["by"]) == (9, "both")
    assert recalled["similarity"] >= 0.55
    assert_promise(providers, result)

    async def down(*_args: object, deadline: float | None = None) -> list[list[float]]:
        raise ProviderUnavailable("the embedder is down")

    # The question's vector is kept from the first build: no vector for any input now.
    monkeypatch.setattr(providers.queries, "vector", down)
    result = await build(client, tenancy, QUESTION, WINDOW)
    (recalled,) = result["history"]["recalled"]
    assert (recalled["seq"], recalled["by"], recalled["similarity"]) == (9, "words", None)
    assert_promise(providers, result)
    result = await build(client, tenancy, BY_MEANING, WINDOW)
    assert result["history"]["recalled"] == []
    assert_promise(providers, result)


async def test_another_sessions_or_tenants_message_is_never_recalled_by_meaning(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    other_tenancy: Tenancy,
    providers: Providers,
    worker: Worker,
) -> None:
    await start(client, tenancy, with_violin(60), "/agents/newton/sessions/chat-2/messages")
    # The same agent and session names, another tenant.
    await start(client, other_tenancy, with_violin(60))
    await client.post(MESSAGES, json={"messages": conversation(60)}, headers=tenancy.headers)
    await worker.drain()
    result = await build(client, tenancy, BY_MEANING, WINDOW)
    assert result["history"]["evicted"] > 0
    assert result["history"]["recalled"] == []
    assert "violin" not in result["context"]
    assert_promise(providers, result)
