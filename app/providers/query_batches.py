"""Inputs embedded together when they come together.

A build whose input was never seen waits for its query vector. A local model's run costs much
beside its texts (all-MiniLM-L6-v2: 4.8 ms of CPU for one short input alone, 3.0 each for four,
2.8 each for eight): so while one run is under way, the inputs that arrive wait for it to end
and then go in one run together. An input that arrives to an idle
embedder goes at once, alone, as before; under load the builds share the model's time.
"""

import asyncio

import numpy as np

from app.core.vector import Embedding
from app.providers.embeddings import GuardedEmbedder

MAX_BATCH = 16  # inputs in one run at most: past it the run's time grows with each input


class QueryBatches:
    """One embedder's query runs: at most one under way, the inputs that arrive meanwhile
    embedded together in the next."""

    def __init__(self, embedder: GuardedEmbedder, max_batch: int = MAX_BATCH) -> None:
        self._embedder = embedder
        self._max_batch = max_batch
        self._waiting: list[tuple[str, asyncio.Future[Embedding]]] = []
        self._running: asyncio.Task[None] | None = None

    async def vector(self, text: str) -> Embedding:
        """The text's query vector, from the next run; the run's error if it fails."""
        found: asyncio.Future[Embedding] = asyncio.get_running_loop().create_future()
        self._waiting.append((text, found))
        if self._running is None:
            self._running = asyncio.create_task(self._runs())
        return await found

    async def _runs(self) -> None:
        """Run the waiting inputs, a batch at a time, until none wait."""
        try:
            while self._waiting:
                batch = [(t, f) for t, f in self._waiting[: self._max_batch] if not f.done()]
                del self._waiting[: self._max_batch]
                if batch:
                    await self._run(batch)
        finally:
            self._running = None

    async def _run(self, batch: list[tuple[str, asyncio.Future[Embedding]]]) -> None:
        try:
            vectors = await self._embedder.embed_queries([text for text, _found in batch])
        except asyncio.CancelledError:  # the process is stopping: so are the builds' waits
            for _text, found in batch:
                found.cancel()
            raise
        except Exception as exc:  # every build of the batch gets the error
            for _text, found in batch:
                if not found.done():
                    found.set_exception(exc)
            return
        for (_text, found), vector in zip(batch, vectors, strict=True):
            if not found.done():  # its build may have stopped waiting
                found.set_result(np.asarray(vector, dtype=np.float32))
