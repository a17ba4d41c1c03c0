"""The session's `embed_messages` job: an append queues it, the worker embeds the messages in
bounded runs and comes back while more remain, an outage delays it and loses nothing, a message
the provider refuses alone is left to its words."""

from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.job_models import Job
from app.core.jobs import JobRepository
from app.core.worker import Worker
from app.maintenance.embeddings import EmbeddingModelChanged, check_embedding_model, reembed_all
from app.providers.container import Providers
from app.providers.embeddings import LOCAL_MODEL
from app.sessions.models import SessionMessage
from app.sessions.vectors import EmbedMessages
from tests.factories import Tenancy, put_agent, vector_storage
from tests.fake_openai import FakeOpenAI
from tests.openai_stack import FAST_WORKER, Stack
from tests.providers.test_outages import work_for

PATH = "/agents/newton/sessions/chat-1/messages"


def said(count: int, marker: str = "") -> list[dict[str, Any]]:
    return [
        {"role": "assistant", "content": f"Message {i} about the release {marker}."}
        for i in range(count)
    ]


async def append(
    client: httpx.AsyncClient, tenancy: Tenancy, messages: list[dict[str, Any]]
) -> None:
    response = await client.post(PATH, json={"messages": messages}, headers=tenancy.headers)
    assert response.status_code == 201, response.text


async def vectors(sessionmaker: async_sessionmaker[AsyncSession]) -> tuple[int, int, int]:
    """Messages with a vector, refused ones, all of them (of every session in this test)."""
    async with sessionmaker() as session:
        row = (
            await session.execute(
                select(
                    func.count(SessionMessage.embedding),
                    func.count(SessionMessage.embedding_refused),
                    func.count(),
                )
            )
        ).one()
    return row[0], row[1], row[2]


async def session_jobs(sessionmaker: async_sessionmaker[AsyncSession]) -> list[Job]:
    async with sessionmaker() as session:
        found = await session.scalars(
            select(Job).where(Job.task == "embed_messages").order_by(Job.id)
        )
        return list(found)


async def test_messages_are_embedded_in_bounded_runs_until_none_is_left(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    providers: Providers,
    settings: Settings,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(client, tenancy)
    await append(client, tenancy, said(6))
    await append(client, tenancy, said(4, "again"))
    (job,) = await session_jobs(sessionmaker)  # one waits for the session, however many appends
    assert job.state == "queued"
    worker = Worker(sessionmaker, [EmbedMessages(providers.embedder, 4, 3)], settings.worker)
    assert await worker.run_once() == 1
    assert await vectors(sessionmaker) == (4, 0, 10)
    assert [j.state for j in await session_jobs(sessionmaker)] == ["done", "queued"]
    await worker.drain()
    assert await vectors(sessionmaker) == (10, 0, 10)
    assert {j.state for j in await session_jobs(sessionmaker)} == {"done"}


async def test_a_claim_taken_over_stores_no_vector(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    providers: Providers,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(client, tenancy)
    await append(client, tenancy, said(3))
    async with sessionmaker.begin() as session:
        (stale,) = await JobRepository(session).claim(
            "gone/1", "embed_messages", 1, timedelta(seconds=0)
        )
    async with sessionmaker.begin() as session:  # its lease ran out: another claim takes it
        (taken,) = await JobRepository(session).claim(
            "alive/1", "embed_messages", 1, timedelta(seconds=0)
        )
    handler = EmbedMessages(providers.embedder, 10, 3)
    await handler.run(sessionmaker, [stale])
    assert await vectors(sessionmaker) == (0, 0, 3)
    await handler.run(sessionmaker, [taken])
    assert await vectors(sessionmaker) == (3, 0, 3)


async def test_an_outage_delays_the_vectors_and_loses_none(
    fast_stack: Stack,
    fake: FakeOpenAI,
    tenancy: Tenancy,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(fast_stack.client, tenancy)
    fake.fail_all(503)
    await append(fast_stack.client, tenancy, said(3))
    await work_for(fast_stack, 0.4)
    await append(fast_stack.client, tenancy, said(2, "later"))  # accepted meanwhile
    await work_for(fast_stack, 0.3)
    assert await vectors(sessionmaker) == (0, 0, 5)
    jobs = await session_jobs(sessionmaker)
    assert {j.state for j in jobs} == {"queued"}  # never failed: an outage is no one's fault
    assert max(j.attempts for j in jobs) > FAST_WORKER.max_attempts
    fake.recover()
    await work_for(fast_stack, 0.5)
    assert await vectors(sessionmaker) == (5, 0, 5)
    assert {j.state for j in await session_jobs(sessionmaker)} == {"done"}


async def test_a_message_the_provider_refuses_alone_is_left_to_its_words(
    fast_stack: Stack,
    fake: FakeOpenAI,
    tenancy: Tenancy,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(fast_stack.client, tenancy)
    fake.reject_inputs_containing("POISON")
    await append(fast_stack.client, tenancy, [*said(2), *said(1, "POISON")])
    await fast_stack.worker.drain()
    assert await vectors(sessionmaker) == (2, 1, 3)
    (job,) = await session_jobs(sessionmaker)
    assert job.state == "done"
    # Asked once: a later run leaves it alone.
    asked = len(fake.requests_to("/v1/embeddings"))
    await append(fast_stack.client, tenancy, said(1, "fine"))
    await fast_stack.worker.drain()
    assert await vectors(sessionmaker) == (3, 1, 4)
    assert len(fake.requests_to("/v1/embeddings")) == asked + 1


async def test_a_retried_session_job_beside_a_waiting_one_is_done_instead(
    client: httpx.AsyncClient, tenancy: Tenancy, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    await put_agent(client, tenancy)
    await append(client, tenancy, said(1))
    async with sessionmaker.begin() as session:
        (running,) = await JobRepository(session).claim(
            "w/1", "embed_messages", 1, timedelta(minutes=1)
        )
    await append(client, tenancy, said(1, "meanwhile"))  # queues the session's next job
    async with sessionmaker.begin() as session:  # at most one waits: no second queued row
        await JobRepository(session).retry_later(running, "outage", 0.0, own_fault=False)
    assert [j.state for j in await session_jobs(sessionmaker)] == ["done", "queued"]


async def test_a_change_of_model_treats_message_vectors_as_memory_vectors(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    worker: Worker,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(client, tenancy)
    await append(client, tenancy, said(3))
    await worker.drain()
    assert await vectors(sessionmaker) == (3, 0, 3)
    assert await vector_storage(sessionmaker) == await vector_storage(sessionmaker, "memory") == "m"
    # Only message vectors are stored: another model is refused all the same.
    async with sessionmaker.begin() as session:
        with pytest.raises(EmbeddingModelChanged):
            await check_embedding_model(session, "model-c", 384, reembed=False, max_attempts=3)
    async with sessionmaker.begin() as session:
        await reembed_all(session, LOCAL_MODEL, 384, max_attempts=3)
    assert await vectors(sessionmaker) == (0, 0, 3)
    # The new columns keep them in the row.
    assert await vector_storage(sessionmaker) == await vector_storage(sessionmaker, "memory") == "m"
    await worker.drain()
    assert await vectors(sessionmaker) == (3, 0, 3)
