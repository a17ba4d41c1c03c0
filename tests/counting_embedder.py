"""A real embedder that records what it was asked to embed, for tests of how often a model runs."""

import asyncio
from collections.abc import Sequence

from app.providers.embeddings import LocalEmbedder


class CountingEmbedder:
    """The local model, with the texts of each run it was asked for (`started` once one is)."""

    def __init__(self, model: LocalEmbedder) -> None:
        self.model = model
        self.calls: list[list[str]] = []
        self.started = asyncio.Event()

    @property
    def model_name(self) -> str:
        return self.model.model_name

    @property
    def dimensions(self) -> int:
        return self.model.dimensions

    @property
    def queries_as_documents(self) -> bool:
        return self.model.queries_as_documents

    @property
    def runs(self) -> list[int]:
        """How many texts each run held."""
        return [len(texts) for texts in self.calls]

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        self.started.set()
        return await self.model.embed(texts)

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        self.started.set()
        return await self.model.embed_queries(texts)

    async def aclose(self) -> None:
        """The model is the providers' and closes with them."""
