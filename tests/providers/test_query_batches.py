"""Inputs that come together share a model run: the builds that wait for their query vectors
together wait for one run, and each gets the vector it would get alone."""

import asyncio

import numpy as np

from app.core.config import Settings
from app.providers.breaker import CircuitBreaker
from app.providers.container import Providers
from app.providers.embeddings import GuardedEmbedder, LocalEmbedder
from app.providers.query_batches import QueryBatches
from tests.counting_embedder import CountingEmbedder

TEXTS = [f"Why did service {i} page the on-call on day {i} of the sprint?" for i in range(7)]


def _batches(providers: Providers) -> tuple[QueryBatches, CountingEmbedder]:
    model = providers.embedder.inner
    assert isinstance(model, LocalEmbedder)
    counted = CountingEmbedder(model)
    breaker = CircuitBreaker("embeddings", Settings().breaker)
    return QueryBatches(GuardedEmbedder(counted, breaker)), counted


async def test_inputs_that_arrive_during_a_run_go_together_in_the_next(
    providers: Providers,
) -> None:
    batches, counted = _batches(providers)
    first = asyncio.create_task(batches.vector(TEXTS[0]))
    await counted.started.wait()  # the first input's run is under way
    rest = await asyncio.gather(*(batches.vector(text) for text in TEXTS[1:]))
    vectors = [await first, *rest]
    assert counted.runs == [1, len(TEXTS) - 1]
    alone = [counted.model.embed_sync([text], "query")[0] for text in TEXTS]
    assert np.allclose(np.stack(vectors), np.stack(alone), atol=1e-5)


async def test_an_input_to_an_idle_embedder_runs_at_once(providers: Providers) -> None:
    batches, counted = _batches(providers)
    for text in TEXTS[:3]:
        vector = await batches.vector(text)
        assert np.allclose(vector, counted.model.embed_sync([text], "query")[0], atol=1e-5)
    assert counted.runs == [1, 1, 1]


async def test_a_build_that_stops_waiting_leaves_the_others_their_vectors(
    providers: Providers,
) -> None:
    batches, counted = _batches(providers)
    first = asyncio.create_task(batches.vector(TEXTS[0]))
    await counted.started.wait()
    gone = asyncio.create_task(batches.vector(TEXTS[1]))
    kept = asyncio.create_task(batches.vector(TEXTS[2]))
    await asyncio.sleep(0)
    gone.cancel()
    vectors = await asyncio.gather(first, kept)
    assert gone.cancelled()
    assert counted.runs == [1, 1]  # the one that stopped waiting was not embedded
    assert np.allclose(vectors[1], counted.model.embed_sync([TEXTS[2]], "query")[0], atol=1e-5)
