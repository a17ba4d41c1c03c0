"""The local embedding model: runs of similar length, and vectors that do not depend on them."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from app.providers.container import Providers
from app.providers.embeddings import LocalEmbedder, runs


def test_runs_take_every_text_once_within_the_padded_size() -> None:
    lengths = [300, 12, 40, 12, 90, 41, 95, 7, 256]
    groups = list(runs(lengths, limit=256))
    assert sorted(i for group in groups for i in group) == list(range(len(lengths)))
    for group in groups:
        widest = max(lengths[i] for i in group)
        assert len(group) == 1 or len(group) * widest <= 256
    # Short texts share runs, long ones run in twos or alone, shortest first.
    assert [[lengths[i] for i in group] for group in groups] == [
        [7, 12, 12, 40, 41],
        [90, 95],
        [256],
        [300],
    ]


def test_a_text_gets_the_same_vector_alone_or_in_any_batch(providers: Providers) -> None:
    embedder = providers.embedder.inner
    assert isinstance(embedder, LocalEmbedder)
    texts = [
        "Deploys go through staging first.",
        "The billing service owns invoices; its on-call rotates weekly and pages on errors. " * 6,
        "Chose PostgreSQL with pgvector.",
        "Canary releases take five percent of the traffic for an hour before the rest.",
    ]
    batch = embedder.embed_sync(texts)
    for text, vector in zip(texts, batch, strict=True):
        (alone,) = embedder.embed_sync([text])
        assert np.allclose(alone, vector, atol=1e-5)
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    # Meaning still decides: the two deploy sentences are closer than deploy and billing.
    assert float(batch[0] @ batch[3]) > float(batch[0] @ batch[1])


def test_concurrent_callers_get_the_vectors_they_would_get_alone(providers: Providers) -> None:
    embedder = providers.embedder.inner
    assert isinstance(embedder, LocalEmbedder)
    texts = [f"Service {i} deploys through staging on day {i} of the sprint." for i in range(12)]
    alone = embedder.embed_sync(texts)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda t: embedder.embed_sync([t])[0], texts))
    assert np.allclose(np.stack(results), alone, atol=1e-5)
