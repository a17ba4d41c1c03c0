"""Loading memories through the batch API (LoCoMo's turns as episodes among them), and waiting
for the background work to finish."""

import asyncio
import sys
import time
import uuid
from collections.abc import Sequence
from typing import NoReturn, Protocol

from tqdm import tqdm

from app.memories.schemas import MemoryRead
from bench.common.client import BATCH_MAX, ApiClient, MemoryBody
from bench.common.locomo import Conversation


def progress(total: int, desc: str, unit: str) -> "tqdm[NoReturn]":
    """A progress bar on stderr; in a log (not a terminal) it updates every 10 s."""
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        dynamic_ncols=True,
        mininterval=0.1 if sys.stderr.isatty() else 10.0,
    )


class Progress(Protocol):
    """A progress bar (tqdm) that counts written memories."""

    def update(self, n: float | None = 1) -> bool | None: ...


async def write_in_order(
    api: ApiClient, agent_id: str, bodies: Sequence[MemoryBody], bar: Progress
) -> list[MemoryRead]:
    """Write batches one after the other, so the service sees them in the given order."""
    stored: list[MemoryRead] = []
    for start in range(0, len(bodies), BATCH_MAX):
        batch = list(bodies[start : start + BATCH_MAX])
        stored.extend(await api.write_batch(agent_id, batch))
        bar.update(len(batch))
    return stored


async def write_concurrently(
    api: ApiClient, agent_id: str, bodies: Sequence[MemoryBody], writers: int, bar: Progress
) -> list[MemoryRead]:
    """Write batches from several clients at once (order between batches not kept)."""
    batches = [list(bodies[i : i + BATCH_MAX]) for i in range(0, len(bodies), BATCH_MAX)]
    results: list[list[MemoryRead]] = [[] for _ in batches]
    next_batch = iter(range(len(batches)))

    async def writer() -> None:
        for index in next_batch:
            results[index] = await api.write_batch(agent_id, batches[index])
            bar.update(len(batches[index]))

    await asyncio.gather(*(writer() for _ in range(writers)))
    return [memory for batch in results for memory in batch]


async def wait_for_background(api: ApiClient, desc: str, poll_seconds: float = 0.5) -> float:
    """Wait until no background job is queued or running; the seconds it took."""
    started = time.perf_counter()
    pending = await api.pending_jobs()
    with progress(pending, desc, "job") as bar:
        while pending > 0:
            await asyncio.sleep(poll_seconds)
            now_pending = await api.pending_jobs()
            if now_pending > (bar.total or 0):  # writes still arriving
                bar.total = now_pending + bar.n
            bar.update(max(pending - now_pending, 0))
            pending = now_pending
    failed = await api.failed_jobs()
    if failed:
        print(f"warning: {failed} background job(s) failed; see GET /memories/{{id}} provenance")
    return time.perf_counter() - started


def episode(line: str, dia_id: str, at: str) -> MemoryBody:
    """A turn as an episode memory, with its time and its dia_id in metadata."""
    return {
        "kind": "episode",
        "detail": line,
        "started_at": at,
        "occurred_at": at,
        "metadata": {"dia_id": dia_id},
    }


async def ingest_turns(api: ApiClient, conversations: list[Conversation]) -> dict[uuid.UUID, str]:
    """Write every turn as an episode, in order; memory id -> dia_id."""
    dia_of: dict[uuid.UUID, str] = {}
    total = sum(len(c.turns) for c in conversations)
    with progress(total, "write turns", "turn") as bar:
        for conv in conversations:
            first, second = conv.speakers
            await api.put_agent(conv.sample_id, f"Companion of {first} and {second}")
            bodies = [episode(t.render(), t.dia_id, t.at.isoformat()) for t in conv.turns]
            stored = await write_in_order(api, conv.sample_id, bodies, bar)
            for turn, memory in zip(conv.turns, stored, strict=True):
                dia_of[memory.id] = turn.dia_id
    return dia_of
