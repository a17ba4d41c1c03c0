"""A second, stronger model rescores a build's candidates (CE_EMBEDDINGS__RESCORE_MODEL): the
worker gives every memory its vector after the search model's, a build's similarity is the
rescoring model's where both the input and the memory have its vector, and the search model's
until then. multilingual-e5-small stands in for all-mpnet-base-v2 here: both are local models,
and e5 is installed with the tests."""

from collections.abc import AsyncIterator
from typing import Any, NamedTuple
from uuid import UUID

import httpx
import numpy as np
import pytest
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.config import EmbeddingSettings, Settings
from app.core.db import Database
from app.core.worker import Worker
from app.maintenance.embeddings import queue_rescoring
from app.memories.repository import MemoryRepository
from app.providers.container import Providers, build_providers
from app.runtime import Runtime, build_handlers
from tests.conftest import client_of
from tests.factories import Tenancy, put_agent, vector_storage, write

RESCORER = "multilingual-e5-small"
QUESTION = "Which instrument is my daughter learning?"
VIOLIN = "My daughter starts violin lessons next month; she picked the teacher herself."
FLIGHT = "Our flight to Lisbon lands at 7pm on Friday."


@pytest.fixture(scope="module")
def rescoring(settings: Settings) -> tuple[Settings, Providers]:
    """The test settings with a rescoring model, and providers that load it; the search
    model's index gives one candidate, so what else comes comes by the words or the scan of
    the second model's vectors."""
    embeddings = settings.embeddings.model_copy(update={"rescore_model": RESCORER})
    context = settings.context.model_copy(update={"vector_candidates": 1})
    changed = settings.model_copy(update={"embeddings": embeddings, "context": context})
    return changed, build_providers(changed)


class Second(NamedTuple):
    """The service with the rescoring model: its settings, providers, client and worker."""

    settings: Settings
    providers: Providers
    client: httpx.AsyncClient
    worker: Worker


@pytest.fixture
async def second(
    rescoring: tuple[Settings, Providers],
    database: Database,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> AsyncIterator[Second]:
    settings, providers = rescoring
    worker = Worker(sessionmaker, build_handlers(providers, settings), settings.worker)
    runtime = Runtime(settings, Database(database.engine, sessionmaker), providers, worker)
    async with client_of(runtime) as client:
        yield Second(settings, providers, client, worker)


async def _set_second_vector(
    sessionmaker: async_sessionmaker[AsyncSession], memory_id: str, vector: list[float], model: str
) -> None:
    """Store a rescoring vector of the memory's current text, as the worker does."""
    key = UUID(memory_id)
    async with sessionmaker.begin() as session:
        memories = MemoryRepository(session)
        text = (await memories.texts_for_embedding([key]))[key]
        await memories.set_rescore_embeddings([(key, text, vector)], model)


async def _build(client: httpx.AsyncClient, tenancy: Tenancy) -> dict[str, Any]:
    response = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": "newton", "input": QUESTION, "budget": 2000, "frame": "question"},
    )
    assert response.status_code == 200, response.text
    built: dict[str, Any] = response.json()
    return built


def _similarity(built: dict[str, Any], memory_id: str) -> float:
    (item,) = [
        i for layer in built["layers"] for i in layer["items"] if i["memory_id"] == memory_id
    ]
    return float(item["components"]["semantic"])


async def _cosine(providers: Providers, memory_text: str, *, rescorer: bool) -> float:
    embedder = providers.rescorer if rescorer else providers.embedder
    assert embedder is not None
    (query,) = await embedder.embed_queries([QUESTION])
    (document,) = await embedder.embed([memory_text])
    return float(np.dot(query, document))


async def test_a_build_rescores_with_the_second_model_once_the_worker_has_its_vector(
    second: Second, tenancy: Tenancy
) -> None:
    client, providers = second.client, second.providers
    await put_agent(client, tenancy)
    violin = await write(client, tenancy, {"kind": "fact", "content": VIOLIN})
    await write(client, tenancy, {"kind": "fact", "content": FLIGHT})

    # The search model's vectors first: the memory is found and judged by them meanwhile.
    assert await second.worker.run_once(tasks={"embed"}) == 2
    first = await _build(client, tenancy)
    assert first["input_embedding"]["rescored"] is True
    fact_text = (await client.get(f"/memories/{violin['id']}", headers=tenancy.headers)).json()[
        "representations"
    ]["full"]["text"]
    searched = await _cosine(providers, fact_text, rescorer=False)
    assert _similarity(first, violin["id"]) == pytest.approx(searched, abs=1e-3)

    await second.worker.drain()
    read = (await client.get(f"/memories/{violin['id']}", headers=tenancy.headers)).json()
    assert read["provenance"]["rescore_model"] == RESCORER
    assert {(j["task"], j["state"]) for j in read["provenance"]["jobs"]} >= {
        ("embed", "done"),
        ("rescore", "done"),
    }
    rescored_build = await _build(client, tenancy)
    rescored = await _cosine(providers, fact_text, rescorer=True)
    assert abs(rescored - searched) > 0.01  # the two models do differ on this pair
    assert _similarity(rescored_build, violin["id"]) == pytest.approx(rescored, abs=1e-3)
    assert "violin" in rescored_build["context"]


async def test_a_memory_near_only_by_the_second_model_is_found_by_its_scan(
    second: Second, tenancy: Tenancy, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    providers = second.providers
    await put_agent(second.client, tenancy)
    await write(second.client, tenancy, {"kind": "fact", "content": VIOLIN})
    flight = await write(second.client, tenancy, {"kind": "fact", "content": FLIGHT})
    await second.worker.drain()
    assert providers.rescorer is not None
    (near,) = await providers.rescorer.embed_queries([QUESTION])
    # The flight: no word of the question, and far by MiniLM.
    await _set_second_vector(sessionmaker, flight["id"], near, RESCORER)
    built = await _build(second.client, tenancy)
    assert _similarity(built, flight["id"]) == pytest.approx(1.0, abs=1e-3)
    # The scan reads the second model's vectors in the rows (3 KB each: out of line, in the
    # TOAST table, it was four to five times slower at 2,000 memories).
    assert await vector_storage(sessionmaker, "memory", "rescore_embedding") == "m"


async def test_a_changed_text_is_embedded_again_by_both_models(
    second: Second, tenancy: Tenancy
) -> None:
    await put_agent(second.client, tenancy)
    body = {"kind": "decision", "decision": "Chose Postgres over Redis", "reasons": ["One store."]}
    decision = await write(second.client, tenancy, body)
    await second.worker.drain()
    url = f"/memories/{decision['id']}"
    outcome = {"action": "record_outcome", "outcome": "success"}  # its full text says it
    response = await second.client.patch(url, json=outcome, headers=tenancy.headers)
    assert response.status_code == 200, response.text
    await second.worker.drain()
    jobs = (await second.client.get(url, headers=tenancy.headers)).json()["provenance"]["jobs"]
    assert sorted((j["task"], j["state"]) for j in jobs) == [
        ("embed", "done"),
        ("embed", "done"),
        ("rescore", "done"),
        ("rescore", "done"),
    ]


async def test_a_build_without_the_rescoring_model_uses_the_search_model_alone(
    client: httpx.AsyncClient, worker: Worker, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    await write(client, tenancy, {"kind": "fact", "content": VIOLIN})
    await worker.drain()
    built = await _build(client, tenancy)
    assert built["input_embedding"] == {"embedded": True, "reason": None, "rescored": False}
    assert "violin" in built["context"]


async def test_the_search_model_goes_first_and_the_rescoring_waits(
    second: Second, tenancy: Tenancy
) -> None:
    await put_agent(second.client, tenancy)
    batch = min(second.settings.embeddings.batch_size, second.settings.worker.batch_size)
    bodies = [
        {"kind": "fact", "content": f"Fact number {n} about the garden."} for n in range(batch + 1)
    ]
    response = await second.client.post(
        "/agents/newton/memories/batch", headers=tenancy.headers, json={"memories": bodies}
    )
    assert response.status_code == 201, response.text
    # A whole batch of the search model's jobs was taken: none of the rescoring model's yet.
    assert await second.worker.run_once() == batch
    assert await second.worker.run_once(tasks={"rescore"}) == batch


async def test_memories_written_before_the_rescoring_model_was_set_are_queued_at_start(
    client: httpx.AsyncClient,
    worker: Worker,
    tenancy: Tenancy,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(client, tenancy)
    written = [
        await write(client, tenancy, {"kind": "fact", "content": text}) for text in (VIOLIN, FLIGHT)
    ]
    await worker.drain()
    async with sessionmaker.begin() as session:
        assert await queue_rescoring(session, RESCORER, max_attempts=3) >= 2
        assert await queue_rescoring(session, RESCORER, max_attempts=3) == 0  # queued once
    for memory in written:
        read = (await client.get(f"/memories/{memory['id']}", headers=tenancy.headers)).json()
        assert ("rescore", "queued") in {
            (j["task"], j["state"]) for j in read["provenance"]["jobs"]
        }


async def test_another_rescoring_model_s_vectors_are_dropped_at_start_and_computed_again(
    client: httpx.AsyncClient,
    worker: Worker,
    tenancy: Tenancy,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    await put_agent(client, tenancy)
    memory = await write(client, tenancy, {"kind": "fact", "content": VIOLIN})
    await worker.drain()
    await _set_second_vector(sessionmaker, memory["id"], [1.0] + [0.0] * 767, "a-768-model")
    url = f"/memories/{memory['id']}"
    before = (await client.get(url, headers=tenancy.headers)).json()["provenance"]
    assert before["rescore_model"] == "a-768-model"
    async with sessionmaker.begin() as session:
        await queue_rescoring(session, RESCORER, max_attempts=3)
    after = (await client.get(url, headers=tenancy.headers)).json()["provenance"]
    assert after["rescore_model"] is None
    assert ("rescore", "queued") in {(j["task"], j["state"]) for j in after["jobs"]}
    # The setting unset: no worker would run the waiting jobs, so they go too.
    async with sessionmaker.begin() as session:
        assert await queue_rescoring(session, None, max_attempts=3) == 0
    unset = (await client.get(url, headers=tenancy.headers)).json()["provenance"]
    assert "rescore" not in {j["task"] for j in unset["jobs"]}


def test_the_rescoring_model_is_a_local_model_other_than_the_search_model() -> None:
    with pytest.raises(ValidationError, match="is the search model 'all-MiniLM-L6-v2' already"):
        EmbeddingSettings(rescore_model="all-MiniLM-L6-v2")
    with pytest.raises(ValidationError, match="has no model 'bge-large'"):
        EmbeddingSettings(rescore_model="bge-large")
    assert EmbeddingSettings(rescore_model=RESCORER).rescore_model == RESCORER
