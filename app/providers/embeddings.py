"""Embedding providers: a local model run offline, or an OpenAI-compatible endpoint."""

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import openai

from app.core.config import EmbeddingSettings
from app.core.processes import usable_cores
from app.providers.breaker import CircuitBreaker
from app.providers.errors import ProviderUnavailable, from_openai_error
from app.providers.local_embedder import LocalEmbedder
from app.providers.local_models import MINILM, TextKind
from app.providers.onnx_encoder import runs
from app.providers.openai_client import openai_client

__all__ = [
    "LOCAL_DIMENSIONS",
    "LOCAL_MODEL",
    "Embedder",
    "GuardedEmbedder",
    "LocalEmbedder",
    "OpenAIEmbedder",
    "QueryEmbedder",
    "TextKind",
    "build_embedder",
    "build_rescorer",
    "runs",
]

# The default local model.
LOCAL_MODEL = MINILM.name
LOCAL_DIMENSIONS = MINILM.dimensions


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors of a fixed dimension."""

    @property
    def model_name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors of documents: memories' texts."""
        ...

    async def aclose(self) -> None: ...


@runtime_checkable
class QueryEmbedder(Embedder, Protocol):
    """An embedder whose model embeds what is searched with apart from what is searched (e5's
    "query: " and "passage: "); others embed a query as they embed a document."""

    @property
    def queries_as_documents(self) -> bool: ...

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]: ...


class OpenAIEmbedder:
    """Any OpenAI-compatible embeddings endpoint, through the `openai` client."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        self._client = openai_client(settings.base_url, settings.api_key, settings.timeout_seconds)
        self._model = settings.model
        self._dimensions = settings.dimensions
        self._batch_size = settings.batch_size

    @property
    def model_name(self) -> str:
        return self._model

    @property
    def dimensions(self) -> int:
        return self._dimensions

    async def aclose(self) -> None:
        """Close the HTTP connections of the client."""
        await self._client.close()

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed texts in requests of at most `batch_size` inputs."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            chunk = list(texts[start : start + self._batch_size])
            try:
                if self._model.startswith("text-embedding-3"):
                    response = await self._client.embeddings.create(
                        model=self._model, input=chunk, dimensions=self._dimensions
                    )
                else:
                    response = await self._client.embeddings.create(model=self._model, input=chunk)
            except openai.OpenAIError as exc:
                raise from_openai_error(exc, "embeddings endpoint") from exc
            rows = sorted(response.data, key=lambda item: item.index)
            for row in rows:
                if len(row.embedding) != self._dimensions:
                    # A configuration fault, not the record's: retried until the setting is fixed.
                    raise ProviderUnavailable(
                        f"embeddings endpoint returned {len(row.embedding)} dimensions, "
                        f"expected {self._dimensions} (CE_EMBEDDINGS__DIMENSIONS)"
                    )
                vectors.append(_normalise(row.embedding))
        return vectors


class GuardedEmbedder:
    """An embedder behind its circuit breaker; callers that cannot wait give a deadline."""

    def __init__(self, embedder: Embedder, breaker: CircuitBreaker) -> None:
        self.inner = embedder
        self.breaker = breaker
        self._queries = embedder if isinstance(embedder, QueryEmbedder) else None
        # A text's vector as a query is its vector as a document (its message's, its memory's).
        self.queries_as_documents = self._queries is None or self._queries.queries_as_documents

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    async def embed(
        self, texts: Sequence[str], *, deadline: float | None = None
    ) -> list[list[float]]:
        """Embed documents; ProviderUnavailable when the provider is down, slow or past
        `deadline`."""
        return await self.breaker.call(lambda: self.inner.embed(texts), deadline=deadline)

    async def embed_queries(
        self, texts: Sequence[str], *, deadline: float | None = None
    ) -> list[list[float]]:
        """Embed what a build searches with (its input, frame examples); as `embed` otherwise."""
        queries = self._queries
        if queries is None:
            return await self.embed(texts, deadline=deadline)
        return await self.breaker.call(lambda: queries.embed_queries(texts), deadline=deadline)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _normalise(vector: list[float]) -> list[float]:
    norm = float(np.linalg.norm(vector))
    return vector if norm == 0 else [x / norm for x in vector]


def build_embedder(settings: EmbeddingSettings, processes: int = 1) -> Embedder:
    """The configured embedding provider (the settings have checked a local model's name and
    dimensions); a local model runs on this process's share of the cores among `processes`."""
    if settings.provider == "openai":
        return OpenAIEmbedder(settings)
    return LocalEmbedder(settings.model, _threads(settings, processes), settings.models_dir)


def build_rescorer(settings: EmbeddingSettings, processes: int = 1) -> LocalEmbedder | None:
    """The local model that rescores a build's candidates, when one is set."""
    if settings.rescore_model is None:
        return None
    return LocalEmbedder(settings.rescore_model, _threads(settings, processes), settings.models_dir)


def _threads(settings: EmbeddingSettings, processes: int) -> int:
    """A local model's runs at once: the setting, or this process's share of the cores."""
    return settings.threads or max(1, usable_cores() // processes)
