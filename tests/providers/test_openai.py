"""The OpenAI-compatible providers, end to end: HTTP API, job queue, real `openai` client, and
the fake server of tests/fake_openai.py over real HTTP on 127.0.0.1."""

import asyncio
import uuid
from collections.abc import AsyncIterator

import numpy as np
import openai
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import Settings
from app.core.db import Database
from app.memories.models import Memory
from tests.factories import Tenancy, fact, put_agent, write
from tests.fake_openai import FakeOpenAI
from tests.fake_openai_answers import SUMMARY_PREFIX, embedding_for
from tests.openai_stack import (
    CHAT_MODEL,
    DIMENSIONS,
    EMBED_MODEL,
    Stack,
    jobs,
    open_stack,
    read,
)


@pytest.fixture
async def stack(
    settings: Settings,
    database: Database,
    sessionmaker: async_sessionmaker[AsyncSession],
    fake: FakeOpenAI,
) -> AsyncIterator[Stack]:
    async with open_stack(settings, database, sessionmaker, fake) as opened:
        yield opened


async def stored_vector(
    sessionmaker: async_sessionmaker[AsyncSession], memory_id: str
) -> list[float] | None:
    async with sessionmaker() as session:
        vector = await session.scalar(
            select(Memory.embedding).where(Memory.id == uuid.UUID(memory_id))
        )
    return None if vector is None else [float(x) for x in vector]


def long_detail(words: int = 400) -> str:
    """A deterministic incident report of about `words` words, in sentences, no blank lines."""
    systems = ["billing", "search", "auth", "ingest", "export", "reports", "queue", "cache"]
    sentences = []
    for i in range(words // 16 + 1):
        system = systems[i % len(systems)]
        sentences.append(
            f"At step {i} the {system} service returned error {500 + i} after {3 * i} "
            f"seconds, so Ada restarted the {system} pods and the latency dropped."
        )
    return " ".join(sentences)


async def test_the_fake_computes_vectors_and_honours_dimensions(fake: FakeOpenAI) -> None:
    """The fake's own contract, through the real client: both encodings, `dimensions`."""
    async with openai.AsyncOpenAI(base_url=fake.url + "/v1", api_key="k", max_retries=0) as api:
        as_float = await api.embeddings.create(
            model=EMBED_MODEL, input=["alpha", "beta"], dimensions=8, encoding_format="float"
        )
        as_base64 = await api.embeddings.create(model="other", input="alpha")
    assert [row.index for row in as_float.data] == [0, 1]
    assert as_float.model == EMBED_MODEL
    assert as_float.usage.prompt_tokens == 2
    assert np.allclose(as_float.data[0].embedding, embedding_for("alpha", 8))
    assert np.allclose(as_float.data[1].embedding, embedding_for("beta", 8))
    assert not np.allclose(as_float.data[0].embedding, as_float.data[1].embedding)
    assert np.isclose(np.linalg.norm(as_float.data[0].embedding), 1.0, atol=1e-6)
    # No `dimensions`: the default; the client asked for base64 and decoded it.
    assert len(as_base64.data[0].embedding) == DIMENSIONS
    assert np.allclose(as_base64.data[0].embedding, embedding_for("alpha", DIMENSIONS))
    assert [r.body.get("encoding_format") for r in fake.requests] == ["float", "base64"]


async def test_a_fact_is_embedded_by_the_endpoint(
    stack: Stack,
    fake: FakeOpenAI,
    tenancy: Tenancy,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(stack.client, tenancy)
    content = "The staging cluster runs PostgreSQL 16 with pgvector 0.8."
    memory = await write(stack.client, tenancy, fact(content))
    assert memory["provenance"]["embedding_model"] is None
    assert [(j["state"], j["attempts"]) for j in jobs(memory)] == [("queued", 0)]
    assert fake.requests == []  # the write does not wait for the provider

    assert await stack.worker.drain() == 1

    stored = await read(stack, tenancy, memory["id"])
    assert stored["provenance"]["embedding_model"] == EMBED_MODEL
    assert stored["provenance"]["embedded_at"] is not None
    assert [(j["state"], j["attempts"], j["last_error"]) for j in jobs(stored)] == [
        ("done", 1, None)
    ]
    (request,) = fake.requests_to("/v1/embeddings")
    assert request.body["input"] == [content]
    assert request.body["model"] == EMBED_MODEL
    assert request.body["dimensions"] == DIMENSIONS
    assert request.authorization == "Bearer sk-embed"
    # The stored vector is the one the endpoint computed for this very text.
    vector = await stored_vector(sessionmaker, memory["id"])
    assert vector is not None
    assert np.allclose(vector, embedding_for(content, DIMENSIONS), atol=1e-6)


async def test_a_long_episode_gets_an_llm_summary(
    stack: Stack, fake: FakeOpenAI, tenancy: Tenancy
) -> None:
    await put_agent(stack.client, tenancy)
    detail = long_detail()
    assert len(detail.split()) >= 300
    memory = await write(stack.client, tenancy, {"kind": "episode", "detail": detail})
    before = memory["representations"]["summary"]
    full = memory["representations"]["full"]["text"]
    assert before["source"] == "extractive"
    assert before["text"] != full
    assert not before["text"].startswith(SUMMARY_PREFIX)
    assert [j["state"] for j in jobs(memory, "summarize")] == ["queued"]

    assert await stack.worker.drain() == 2  # embed + summarize

    stored = await read(stack, tenancy, memory["id"])
    after = stored["representations"]["summary"]
    expected = f"{SUMMARY_PREFIX} {' '.join(full.split()[: fake.summary_words])}"
    assert after["source"] == "llm"
    assert after["text"] == expected
    tokens = stack.providers.tokens
    assert after["tokens"] == tokens.count(expected)
    assert after["tokens_by_encoding"] == tokens.counts(expected)
    assert after["tokens_by_encoding"] != before["tokens_by_encoding"]
    # Only the summary changed.
    assert stored["representations"]["full"] == memory["representations"]["full"]
    assert stored["representations"]["micro"] == memory["representations"]["micro"]
    assert [(j["state"], j["attempts"]) for j in jobs(stored, "summarize")] == [("done", 1)]
    assert stored["provenance"]["embedding_model"] == EMBED_MODEL
    (chat,) = fake.requests_to("/v1/chat/completions")
    assert chat.body["model"] == CHAT_MODEL
    assert chat.authorization == "Bearer x"
    assert chat.body["messages"][-1]["content"].endswith(full)


async def test_a_rate_limit_is_retried_until_embedded(
    stack: Stack, fake: FakeOpenAI, tenancy: Tenancy
) -> None:
    await put_agent(stack.client, tenancy)
    fake.fail_next(1, status=429)
    memory = await write(stack.client, tenancy, fact("The API allows 600 requests a minute."))

    assert await stack.worker.run_once() == 1
    (job,) = jobs(await read(stack, tenancy, memory["id"]))
    assert (job["state"], job["attempts"]) == ("queued", 1)
    assert "429" in job["last_error"]

    await asyncio.sleep(0.05)  # past the backoff
    assert await stack.worker.drain() == 1
    stored = await read(stack, tenancy, memory["id"])
    assert stored["provenance"]["embedding_model"] == EMBED_MODEL
    assert [(j["state"], j["attempts"], j["last_error"]) for j in jobs(stored)] == [
        ("done", 2, None)
    ]
    requests = fake.requests_to("/v1/embeddings")
    assert [r.status for r in requests] == [429, 200]
    assert requests[0].body["input"] == requests[1].body["input"]


async def test_a_vector_of_the_wrong_dimension_is_rejected(
    settings: Settings,
    database: Database,
    sessionmaker: async_sessionmaker[AsyncSession],
    fake: FakeOpenAI,
    tenancy: Tenancy,
) -> None:
    # A model without `dimensions` support that makes 256-dimension vectors, configured as 384.
    fake.default_dimensions = 256
    async with open_stack(
        settings, database, sessionmaker, fake, embed_model="nomic-embed-text"
    ) as stack:
        await put_agent(stack.client, tenancy)
        memory = await write(stack.client, tenancy, fact("Vectors must match the column."))
        assert await stack.worker.run_once() == 1

        stored = await read(stack, tenancy, memory["id"])
        (job,) = jobs(stored)
        assert (job["state"], job["attempts"]) == ("queued", 1)
        assert "returned 256 dimensions, expected 384" in job["last_error"]
        assert "CE_EMBEDDINGS__DIMENSIONS" in job["last_error"]
        assert stored["provenance"]["embedding_model"] is None
        assert await stored_vector(sessionmaker, memory["id"]) is None
        (request,) = fake.requests_to("/v1/embeddings")
        assert "dimensions" not in request.body
        assert request.status == 200
