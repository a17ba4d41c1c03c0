"""A build's input embedded once: the user's message is embedded when it is appended, so the
build that takes it as its input asks the provider nothing, in the same API process or another,
and the worker stores that vector for the message; a repeated input and a refresh with it embed
it once, within a tenant; an embedding that failed is tried again by the next build; only the
last inputs are kept."""

from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.db import Database
from app.sessions.models import InputVector, SessionMessage
from tests.factories import Tenancy, put_agent
from tests.fake_openai import FakeOpenAI
from tests.openai_stack import FAST_BREAKER, Stack, open_stack

AGENT = "newton"


def embedded(fake: FakeOpenAI, text: str) -> int:
    """How many embeddings requests the provider answered with this text among their inputs."""
    return sum(
        1
        for r in fake.requests_to("/v1/embeddings")
        if r.status == 200 and text in r.body.get("input", [])
    )


async def build(client: httpx.AsyncClient, tenancy: Tenancy, text: str, **more: Any) -> Any:
    response = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": AGENT, "input": text, **more},
    )
    assert response.status_code == 200, response.text
    return response.json()


async def append(client: httpx.AsyncClient, tenancy: Tenancy, *messages: dict[str, str]) -> None:
    response = await client.post(
        f"/agents/{AGENT}/sessions/chat-1/messages",
        headers=tenancy.headers,
        json={"messages": list(messages)},
    )
    assert response.status_code == 201, response.text


async def test_a_build_finds_the_appended_message_embedded(
    fast_stack: Stack,
    fake: FakeOpenAI,
    tenancy: Tenancy,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(fast_stack.client, tenancy, AGENT)
    question = "Which index did we choose for the vectors?"
    await append(
        fast_stack.client,
        tenancy,
        {"role": "assistant", "content": "Hello, how can I help?"},
        {"role": "user", "content": question},
    )
    assert embedded(fake, question) == 1  # by the append, before it answered
    assert embedded(fake, "Hello, how can I help?") == 0  # only what a build will take
    async with sessionmaker() as session:  # the message's own vector, for recall by meaning
        stored = await session.scalar(select(func.count(SessionMessage.embedding)))
    assert stored == 1

    built = await build(fast_stack.client, tenancy, question, session_id="chat-1")
    await fast_stack.worker.drain()  # the messages' vectors, for recall by meaning

    assert built["input_embedding"] == {"embedded": True, "reason": None, "rescored": False}
    assert embedded(fake, question) == 1
    assert embedded(fake, "Hello, how can I help?") == 1
    async with sessionmaker() as session:
        stored = await session.scalar(select(func.count(SessionMessage.embedding)))
    assert stored == 2


async def test_a_build_in_another_process_finds_the_appended_message_embedded(
    settings: Settings,
    database: Database,
    sessionmaker: async_sessionmaker[AsyncSession],
    fast_stack: Stack,
    fake: FakeOpenAI,
    tenancy: Tenancy,
) -> None:
    await put_agent(fast_stack.client, tenancy, AGENT)
    question = "Which queue feeds the billing worker?"
    await append(fast_stack.client, tenancy, {"role": "user", "content": question})
    assert embedded(fake, question) == 1  # before the append answered

    async with open_stack(settings, database, sessionmaker, fake) as other_process:
        built = await build(other_process.client, tenancy, question)

    assert built["input_embedding"] == {"embedded": True, "reason": None, "rescored": False}
    assert embedded(fake, question) == 1


async def test_an_erased_session_takes_its_kept_vectors_along(
    fast_stack: Stack,
    tenancy: Tenancy,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(fast_stack.client, tenancy, AGENT)
    await append(
        fast_stack.client, tenancy, {"role": "user", "content": "Is the invoice run done?"}
    )
    async with sessionmaker() as session:
        assert await session.scalar(select(func.count()).select_from(InputVector)) == 1

    erased = await fast_stack.client.delete(
        f"/agents/{AGENT}/sessions/chat-1", headers=tenancy.headers
    )
    assert erased.status_code == 204

    async with sessionmaker() as session:
        assert await session.scalar(select(func.count()).select_from(InputVector)) == 0


async def test_a_repeated_input_and_its_refresh_embed_it_once(
    fast_stack: Stack, fake: FakeOpenAI, tenancy: Tenancy
) -> None:
    await put_agent(fast_stack.client, tenancy, AGENT)
    question = "What do we use for caching?"
    first = await build(fast_stack.client, tenancy, question)
    again = await build(fast_stack.client, tenancy, question)
    refreshed = await fast_stack.client.post(
        "/context/refresh",
        headers=tenancy.headers,
        json={"context_id": first["context_id"], "input": question, "decision_point": True},
    )
    assert refreshed.status_code == 200, refreshed.text

    assert refreshed.json()["refreshed"] is True
    assert first["input_embedding"]["embedded"]
    assert again["input_embedding"]["embedded"]
    assert embedded(fake, question) == 1


async def test_another_tenants_same_input_is_embedded_for_it(
    fast_stack: Stack, fake: FakeOpenAI, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    # Kept per tenant: how fast a build answers cannot tell whether another used a text.
    question = "Is the staging database password rotated?"
    for each in (tenancy, other_tenancy):
        await put_agent(fast_stack.client, each, AGENT)
        await build(fast_stack.client, each, question)
    assert embedded(fake, question) == 2


async def test_an_input_whose_embedding_failed_is_embedded_by_the_next_build(
    fast_stack: Stack, fake: FakeOpenAI, tenancy: Tenancy
) -> None:
    await put_agent(fast_stack.client, tenancy, AGENT)
    question = "Who reviews the schema changes?"
    fake.fail_next(1, status=503)
    alone = await build(fast_stack.client, tenancy, question)
    assert alone["input_embedding"]["embedded"] is False
    assert "words alone" in alone["input_embedding"]["reason"]

    retried = await build(fast_stack.client, tenancy, question)

    assert retried["input_embedding"] == {"embedded": True, "reason": None, "rescored": False}
    assert embedded(fake, question) == 1


@pytest.mark.parametrize("kept", [0, 1])
async def test_only_the_last_inputs_are_kept(
    settings: Settings,
    database: Database,
    sessionmaker: async_sessionmaker[AsyncSession],
    fake: FakeOpenAI,
    tenancy: Tenancy,
    kept: int,
) -> None:
    async with open_stack(
        settings, database, sessionmaker, fake, breaker=FAST_BREAKER, query_cache_size=kept
    ) as fast_stack:
        await put_agent(fast_stack.client, tenancy, AGENT)
        first, second = "What runs the billing jobs?", "Who owns the billing jobs?"
        await build(fast_stack.client, tenancy, first)
        await build(fast_stack.client, tenancy, second)  # with one kept, the first goes
        await build(fast_stack.client, tenancy, first)
        await build(fast_stack.client, tenancy, first)
    assert embedded(fake, second) == 1
    assert embedded(fake, first) == (3 if kept == 0 else 2)
