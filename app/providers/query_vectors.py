"""The vectors of recent inputs, so that a build whose input was seen before does not wait for
the model.

An agent appends the user's message to its session and then builds with that message as input:
the append embeds it at once and keeps its vector here and, for the other API processes, in
PostgreSQL (`app.sessions.input_vectors`), and the build finds it ready. A refresh, or an input
repeated, finds it too. The vectors are kept by model, tenant and text (a tenant cannot time
whether another used a text), the least recently used dropped past `size`; a failed embedding
is not kept, so the next build tries again.
"""

import asyncio
import contextlib
import uuid
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from typing import TypeVar

import numpy as np
import structlog
from numpy.typing import NDArray

from app.providers.embeddings import GuardedEmbedder
from app.providers.errors import ProviderError, ProviderUnavailable
from app.providers.query_batches import QueryBatches

log = structlog.get_logger(__name__)
Vector = NDArray[np.float32]
K = TypeVar("K", bound=Hashable)
_Key = tuple[str, uuid.UUID, str]  # model, tenant, text


class QueryVectors:
    """Recent query vectors of one embedder, by text; each text embedded once while kept."""

    def __init__(self, embedder: GuardedEmbedder, size: int) -> None:
        self._embedder = embedder
        self._batches = QueryBatches(embedder)  # inputs that come together share a model run
        self._size = size
        self._kept: OrderedDict[_Key, asyncio.Future[Vector]] = OrderedDict()

    async def vector(
        self, tenant: uuid.UUID, text: str, *, deadline: float | None = None
    ) -> Vector:
        """The text's query vector: kept, joined while under way, or embedded now;
        ProviderUnavailable past `deadline` (the embedding goes on, and is kept)."""
        key = self._key(tenant, text)
        found = self._kept.get(key)
        if found is None:
            found = self._start(key)
        else:
            self._kept.move_to_end(key)
        try:
            return await asyncio.wait_for(asyncio.shield(found), deadline)
        except TimeoutError as exc:
            raise ProviderUnavailable(
                f"the embedding of the input gave no answer within {deadline} s; "
                "it goes on in the background"
            ) from exc

    async def reuse(self, tenant: uuid.UUID, texts: Mapping[K, str]) -> dict[K, list[float]]:
        """The vectors of those texts that are kept or under way (waited for), where a query's
        vector is its document's: a message appended to be built with is embedded once."""
        if not self._embedder.queries_as_documents:
            return {}
        found: dict[K, list[float]] = {}
        for key, text in texts.items():
            kept = self._kept.get(self._key(tenant, text))
            if kept is not None:
                with contextlib.suppress(ProviderError):
                    found[key] = (await asyncio.shield(kept)).tolist()
        return found

    def prefetch(self, tenant: uuid.UUID, text: str) -> None:
        """Start embedding a text a build is about to ask for, unless it is kept already."""
        key = self._key(tenant, text)
        if self._size and text and key not in self._kept:
            self._start(key)

    @property
    def model_name(self) -> str:
        return self._embedder.model_name

    @property
    def queries_as_documents(self) -> bool:
        return self._embedder.queries_as_documents

    def holds(self, tenant: uuid.UUID, text: str) -> bool:
        """Whether the text's vector is kept or under way."""
        return self._key(tenant, text) in self._kept

    def keep(self, tenant: uuid.UUID, text: str, vector: Vector) -> None:
        """Keep a vector of the text found elsewhere (another process embedded it)."""
        if self._size:
            found: asyncio.Future[Vector] = asyncio.get_running_loop().create_future()
            found.set_result(vector)
            self._remember(self._key(tenant, text), found)

    def _start(self, key: "_Key") -> asyncio.Future[Vector]:
        task = asyncio.ensure_future(self._embed(key[2]))
        task.add_done_callback(lambda done: self._settle(key, done))
        if self._size:
            self._remember(key, task)
        return task

    def _remember(self, key: "_Key", vector: asyncio.Future[Vector]) -> None:
        self._kept[key] = vector
        self._kept.move_to_end(key)
        while len(self._kept) > self._size:
            self._kept.popitem(last=False)

    async def _embed(self, text: str) -> Vector:
        return await self._batches.vector(text)

    def _settle(self, key: "_Key", done: asyncio.Future[Vector]) -> None:
        """Forget a failed embedding (its error is the waiting build's, and logged here: a build
        may have stopped waiting for it)."""
        if done.cancelled() or done.exception() is not None:
            if self._kept.get(key) is done:
                del self._kept[key]
            if not done.cancelled() and isinstance(done.exception(), ProviderError):
                log.info("embeddings.query_failed", error=str(done.exception()))

    def _key(self, tenant: uuid.UUID, text: str) -> "_Key":
        return self._embedder.model_name, tenant, text
