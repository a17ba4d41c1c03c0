"""Span summaries of a session, made in the background by the worker: depth 1 of blocks of
messages, depth 2 of five of those; extractive by default, by the LLM when one is configured,
extractive again while it is down."""

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.db import Database
from app.core.job_models import Job
from app.core.worker import Worker
from app.sessions.models import SessionSummary
from tests.factories import Tenancy, put_agent
from tests.fake_openai import FakeOpenAI
from tests.fake_openai_answers import SUMMARY_PREFIX
from tests.openai_stack import open_stack

SESSION = "/agents/newton/sessions/long-1"
START = datetime(2024, 1, 15, 9, 0, tzinfo=UTC)
TOPICS = ("Redis", "Postgres", "Kafka", "SQLite", "Nginx", "Docker", "Terraform")


def long_session(length: int) -> list[dict[str, Any]]:
    """A user and the assistant taking turns over two days, a topic per twenty messages."""
    messages: list[dict[str, Any]] = []
    for seq in range(length):
        topic = TOPICS[seq // 20 % len(TOPICS)]
        role = ("user", "assistant")[seq % 2]
        content = (
            f"Ok. We compared {topic} setups in message {seq}. "
            f"The {topic} deployment needs {seq % 7 + 2} replicas for the billing service."
        )
        when = START + timedelta(minutes=15 * seq)
        messages.append({"role": role, "content": content, "created_at": when.isoformat()})
    return messages


async def append(
    client: httpx.AsyncClient, tenancy: Tenancy, messages: list[dict[str, Any]]
) -> None:
    for start in range(0, len(messages), 50):
        response = await client.post(
            f"{SESSION}/messages",
            json={"messages": messages[start : start + 50]},
            headers=tenancy.headers,
        )
        assert response.status_code == 201, response.text


async def stored(sessionmaker: async_sessionmaker[AsyncSession]) -> list[SessionSummary]:
    async with sessionmaker() as session:
        rows = await session.scalars(
            select(SessionSummary).order_by(SessionSummary.depth, SessionSummary.first_seq)
        )
        return list(rows)


async def test_a_long_session_gets_summaries_at_two_depths(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    worker: Worker,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(client, tenancy, "newton")
    # 140 messages, a fresh tail of 16: six complete blocks of 20 can leave the window.
    await append(client, tenancy, long_session(140))
    assert await stored(sessionmaker) == []  # nothing during the append: in the background
    await worker.drain()
    response = await client.get(SESSION, headers=tenancy.headers)
    assert response.status_code == 200, response.text
    summaries = response.json()["summaries"]
    places = [(s["depth"], s["first_seq"], s["last_seq"], s["messages"]) for s in summaries]
    assert places == [
        (2, 0, 99, 100),
        *[(1, first, first + 19, 20) for first in range(0, 120, 20)],
    ]
    assert all(s["method"] == "extractive" and s["tokens"] > 0 for s in summaries)

    rows = await stored(sessionmaker)
    first = rows[0]
    assert first.content.startswith("[Summary: depth 1, 20 messages, 2024-01-15 to 2024-01-15]")
    lines = first.content.split("\n")[1:]
    assert lines
    assert len(lines) == len(first.quoted_seqs)
    assert all(line.startswith(("user: ", "assistant: ")) for line in lines)
    assert all(0 <= seq <= 19 for seq in first.quoted_seqs)
    assert "Redis deployment needs" in lines[0]  # the informative sentence, not "Ok."
    top = rows[-1]
    assert top.depth == 2
    assert top.content.startswith("[Summary: depth 2, 100 messages, 2024-01-15 to 2024-01-16]")
    assert top.quoted_seqs
    assert all(0 <= seq <= 99 for seq in top.quoted_seqs)

    # Made once: another run over the same session adds none.
    await append(client, tenancy, long_session(141)[140:])
    await worker.drain()
    assert len(await stored(sessionmaker)) == len(rows)


async def test_an_append_that_completes_no_block_queues_no_summaries(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    worker: Worker,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(client, tenancy, "newton")
    await append(client, tenancy, long_session(30))  # 30 - 16 = 14: no block is complete
    async with sessionmaker() as session:
        tasks = await session.scalars(select(Job.task).where(Job.state == "queued"))
        assert list(tasks) == ["embed_messages"]  # the messages' vectors, no summaries
    await worker.drain()
    assert await stored(sessionmaker) == []


async def test_llm_summaries_when_configured_and_extractive_while_it_is_down(
    settings: Settings,
    database: Database,
    sessionmaker: async_sessionmaker[AsyncSession],
    fake: FakeOpenAI,
    tenancy: Tenancy,
) -> None:
    async with open_stack(settings, database, sessionmaker, fake) as stack:
        await put_agent(stack.client, tenancy, "newton")
        await append(stack.client, tenancy, long_session(56))  # two blocks
        await stack.worker.drain()
        by_llm = await stored(sessionmaker)
        assert [(s.depth, s.method) for s in by_llm] == [(1, "llm"), (1, "llm")]
        assert by_llm[0].content.startswith("[Summary: depth 1, 20 messages,")
        assert SUMMARY_PREFIX in by_llm[0].content
        assert by_llm[0].quoted_seqs == []
        # The model is told it reads a conversation, one `role: text` a line.
        asked = fake.requests_to("/v1/chat/completions")[0].body["messages"][0]["content"]
        assert "stretch of a conversation" in asked
        assert "\nuser: " in asked

        fake.fail_all()
        await append(stack.client, tenancy, long_session(76)[56:])  # a third block
        await stack.worker.drain()
        third = (await stored(sessionmaker))[2]
        assert (third.first_seq, third.method) == (40, "extractive")
        assert third.quoted_seqs

        # Back: the next job makes the fourth and rewrites the one made while it was away.
        fake.recover()
        await append(stack.client, tenancy, long_session(96)[76:])
        await stack.worker.drain()
        after = await stored(sessionmaker)
        assert [(s.first_seq, s.method) for s in after] == [
            (0, "llm"), (20, "llm"), (40, "llm"), (60, "llm")
        ]  # fmt: skip
        assert after[2].quoted_seqs == []
        assert after[2].content.startswith("[Summary: depth 1, 20 messages,")


async def test_another_tenants_session_and_summaries_are_invisible(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    other_tenancy: Tenancy,
    worker: Worker,
) -> None:
    await put_agent(client, tenancy, "newton")
    await put_agent(client, other_tenancy, "newton")
    await append(client, tenancy, long_session(60))
    await worker.drain()
    mine = await client.get(SESSION, headers=tenancy.headers)
    assert len(mine.json()["summaries"]) == 2
    theirs = await client.get(SESSION, headers=other_tenancy.headers)
    assert theirs.status_code == 404
    assert theirs.headers["content-type"] == "application/problem+json"
