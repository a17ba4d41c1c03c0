"""One size of the speed benchmark: the measured agent grown to it, the write-to-embedded
lags, the build passes (`passes.py`) and the floor; a `SizeStep` of it all."""

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass

from app.core.config import Settings
from app.memories.schemas import MemoryRead
from app.providers.embeddings import LocalEmbedder
from bench.common.client import ApiClient
from bench.common.corpus import CorpusGenerator
from bench.common.ingest import progress, wait_for_background, write_concurrently
from bench.common.results import Percentiles, percentiles
from bench.common.sampling import MemoryPeaks, RssSampler
from bench.common.server import Service
from bench.speed.floor import FloorTimes, measure_floor
from bench.speed.passes import Passes, run_passes
from bench.speed.plan import IDLE_WRITES, LAG_SAMPLE, MEASURED, NEIGHBOUR_AGENTS, WRITERS
from bench.speed.results import SizeStep


async def load(
    api: ApiClient, agent: str, generator: CorpusGenerator, count: int
) -> tuple[list[MemoryRead], float]:
    """`count` generated memories written for `agent` by concurrent writers; with the seconds
    the writes took."""
    bodies = list(generator.memories(count))
    started = time.perf_counter()
    with progress(count, f"write {agent}", "mem") as bar:
        stored = await write_concurrently(api, agent, bodies, WRITERS, bar)
    return stored, time.perf_counter() - started


async def _lag_bulk(api: ApiClient, stored: list[MemoryRead]) -> Percentiles:
    """Write to embedded, from the server's own timestamps, for a sample of a bulk load."""
    step = max(len(stored) // LAG_SAMPLE, 1)
    lags = []
    for memory in stored[::step][:LAG_SAMPLE]:
        provenance = (await api.get_memory(memory.id)).provenance
        if provenance.embedded_at is not None:
            lags.append((provenance.embedded_at - provenance.created_at).total_seconds() * 1000)
    return percentiles(lags)


async def _lag_idle(api: ApiClient, generator: CorpusGenerator) -> Percentiles:
    """Write one memory to an idle service, poll until it is embedded (client-side time)."""
    lags = []
    for body in generator.memories(IDLE_WRITES):
        started = time.perf_counter()
        memory = await api.write_one(next(iter(NEIGHBOUR_AGENTS)), body)
        for _ in range(6000):  # 30 s at most
            if (await api.get_memory(memory.id)).provenance.embedded_at is not None:
                lags.append((time.perf_counter() - started) * 1000)
                break
            await asyncio.sleep(0.005)
    return percentiles(lags)


@dataclass(frozen=True)
class _Load:
    """The memories added at one size, and how long they took to write and to embed."""

    added: int
    write_seconds: float
    embed_seconds: float
    lag_bulk_ms: Percentiles
    lag_idle_ms: Percentiles


async def measure_size(
    service: Service,
    api: ApiClient,
    sampler: RssSampler,
    embedder: LocalEmbedder,
    generator: CorpusGenerator,
    inputs: Iterator[str],
    size: int,
    current: int,
    tenant_memories: int,
) -> SizeStep:
    """The measured agent grown to `size` memories, and everything measured there."""
    stored, write_seconds = await load(api, MEASURED, generator, size - current)
    embed_seconds = await wait_for_background(api, f"embed to {size:,}")
    loaded = _Load(
        len(stored),
        write_seconds,
        embed_seconds,
        await _lag_bulk(api, stored),
        await _lag_idle(api, generator),
    )
    passes = await run_passes(service, api, inputs)
    # The service's own choice between an exact scan and HNSW, from the same settings.
    exact = size <= Settings().context.exact_search_max_memories
    socket, queries = service.pg_socket_dir, passes.queries
    floor = await measure_floor(socket, "context_engine", MEASURED, queries, embedder, exact)
    floor_all = await measure_floor(
        socket, "context_engine", MEASURED, queries, embedder, exact, "all"
    )
    peaks = sampler.take_peaks()
    return _size_step(size, tenant_memories, exact, loaded, passes, (floor, floor_all), peaks)


def _size_step(
    size: int,
    tenant_memories: int,
    exact: bool,
    loaded: _Load,
    passes: Passes,
    floors: tuple[FloorTimes, FloorTimes],
    peaks: MemoryPeaks,
) -> SizeStep:
    """Everything measured at one size, as the result's row."""
    floor, floor_all = floors
    floor_ms, floor_all_ms = percentiles(floor.total_ms), percentiles(floor_all.total_ms)
    server_c1, session_c1 = percentiles(passes.server1), percentiles(passes.with_session)
    added, write_seconds = loaded.added, loaded.write_seconds
    compact = passes.compact
    return SizeStep(
        size=size,
        tenant_memories=tenant_memories + added + IDLE_WRITES,
        exact_search=exact,
        added=added,
        write_seconds=round(write_seconds, 1),
        writes_per_second=round(added / write_seconds, 1),
        embed_wait_seconds=round(loaded.embed_seconds, 1),
        embeds_per_second=round(added / (write_seconds + loaded.embed_seconds), 1),
        lag_bulk_ms=loaded.lag_bulk_ms,
        lag_idle_ms=loaded.lag_idle_ms,
        server_c1=server_c1,
        server_c1_seen=percentiles(passes.seen),
        server_c1_appended=percentiles(passes.appended),
        client_c1_append=percentiles(passes.appends),
        client_c1_seen=percentiles(passes.seen_client),
        server_c1_compact=percentiles(compact[0]) if compact else None,
        client_c1_compact=percentiles(compact[1]) if compact else None,
        client_c1=percentiles(passes.client1),
        server_c16=percentiles(passes.server16),
        client_c16=percentiles(passes.client16),
        builds_per_second_c16=round(len(passes.server16) / passes.wall16, 1),
        stages_c1={k: percentiles(v) for k, v in passes.stages1.items()},
        tokens_used_mean=round(sum(passes.used) / max(len(passes.used), 1), 1),
        floor_ms=floor_ms,
        floor_embed_ms=percentiles(floor.embed_ms),
        floor_sql_ms=percentiles(floor.sql_ms),
        floor_rows_mean=round(floor.rows_mean, 1),
        ratio_p50=round(server_c1.p50 / max(floor_ms.p50, 1e-6), 2),
        ratio_p95=round(server_c1.p95 / max(floor_ms.p95, 1e-6), 2),
        memory_mib=peaks,
        floor_all_ms=floor_all_ms,
        floor_all_sql_ms=percentiles(floor_all.sql_ms),
        floor_all_rows_mean=round(floor_all.rows_mean, 1),
        ratio_all_p50=round(server_c1.p50 / max(floor_all_ms.p50, 1e-6), 2),
        ratio_all_p95=round(server_c1.p95 / max(floor_all_ms.p95, 1e-6), 2),
        session_c1=session_c1,
        stages_session_c1={k: percentiles(v) for k, v in passes.session_stages.items()},
        session_ratio_p50=round(session_c1.p50 / max(server_c1.p50, 1e-6), 2),
        session_ratio_p95=round(session_c1.p95 / max(server_c1.p95, 1e-6), 2),
        cpu_ms_per_build_c16=passes.cpu_ms,
    )
