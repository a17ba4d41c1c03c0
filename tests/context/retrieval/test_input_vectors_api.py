"""A build's input embedded once: the user's message starts being embedded when it is appended,
so the build that takes it as its input asks the provider nothing, and the worker stores that
vector for the message; a repeated input and a refresh with it embed it once, within a tenant;
an embedding that failed is tried again by the next build; only the last inputs are kept."""

import asyncio
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.db import Database
from app.sessions.models import SessionMessage
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


async def until_embedded(fake: FakeOpenAI, text: str) -> None:
    for _ in range(200):
        if embedded(fake, text):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{text!r} was never embedded")


async def test_a_build_finds_the_appended_message_embedded(
    fast_stack: Stack,
    fake: FakeOpenAI,
    tenancy: Tenancy,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(fast_stack.client, tenancy, AGENT)
    question = "Which index did we choose for the vectors?"
    response = await fast_stack.client.post(
        f"/agents/{AGENT}/sessions/chat-1/messages",
        headers=tenancy.headers,
        json={
            "messages": [
                {"role": "assistant", "content": "Hello, how can I help?"},
                {"role": "user", "content": question},
            ]
        },
    )
    assert response.status_code == 201, response.text
    await until_embedded(fake, question)  # started by the append, the worker not run
    assert embedded(fake, "Hello, how can I help?") == 0  # only what a build will take

    built = await build(fast_stack.client, tenancy, question, session_id="chat-1")
    await fast_stack.worker.drain()  # the messages' vectors, for recall by meaning

    assert built["input_embedding"] == {"embedded": True, "reason": None, "rescored": False}
    assert embedded(fake, question) == 1
    assert embedded(fake, "Hello, how can I help?") == 1
    async with sessionmaker() as session:
        stored = await session.scalar(select(func.count(SessionMessage.embedding)))
    assert stored == 2


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
