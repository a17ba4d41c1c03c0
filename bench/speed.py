"""Latency and throughput at 1,000 / 10,000 / 100,000 memories per agent, with the floor."""

import asyncio
import itertools
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import asdict

from pydantic import JsonValue

from app.core.config import Settings
from app.memories.schemas import MemoryRead
from app.providers.embeddings import LocalEmbedder
from bench import charts
from bench.client import ApiClient, ApiError
from bench.conversation_script import script
from bench.corpus import REFERENCE_TIME, CorpusGenerator
from bench.floor import measure_floor
from bench.ingest import progress, wait_for_background, write_concurrently
from bench.report import RESULTS_DIR, Percentiles, percentiles, run_info, write_json
from bench.server import RssSampler, Service, benchmark_cpu_seconds
from bench.speed_inputs import appended_builds, new_inputs
from bench.speed_tables import SizeStep, SpeedResult, tables

SEED = 20260101
SIZES = (1_000, 10_000, 100_000)
NEIGHBOUR_AGENTS = {"team-b": 1_000, "team-c": 1_000}
MEASURED = "team-a"
BUDGET = 4_000
WRITERS = 4
QUERIES = 200
APPENDED = 100  # builds whose input was appended to a session just before
CONCURRENT_CLIENTS = 16
BUILDS_PER_CLIENT = 30
LAG_SAMPLE = 50
# What the CPU of the builds at 16 clients is shared out among, per build.
CPU_PARTS = ("api", "postgres", "client")
IDLE_WRITES = 10
# The same builds with a session: a scripted conversation of this many messages, and a window
# whose memory share is BUDGET (a fifth of the 20,000 tokens available), the rest the history's.
SESSION = "on-call"
SESSION_MESSAGES = 200
WINDOW: dict[str, JsonValue] = {
    "total": 20_500,
    "system_reserve": 500,
    "tools_reserve": 0,
    "memory_fraction": 0.2,
    "learnings_fraction": 0.0,
}


def _request(query: str, session: bool = False, manifest: str = "full") -> dict[str, JsonValue]:
    request: dict[str, JsonValue] = {
        "agent_id": MEASURED,
        "input": query,
        "now": REFERENCE_TIME.isoformat(),
    }
    if manifest != "full":  # the default, and a field versions before it do not take
        request["manifest"] = manifest
    if session:
        return request | {"session_id": SESSION, "window": WINDOW}
    return request | {"budget": BUDGET}


async def _open_session(api: ApiClient) -> None:
    """The measured agent's conversation, its summaries and vectors made before any build."""
    turns = script(SEED, SESSION_MESSAGES)
    for start in range(0, len(turns), 20):
        batch = [dict(m) for turn in turns[start : start + 20] for m in turn.messages]
        await api.append_messages(MEASURED, SESSION, batch)
    await wait_for_background(api, "session summaries")


async def _load(
    api: ApiClient, agent: str, generator: CorpusGenerator, count: int
) -> tuple[list[MemoryRead], float]:
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


async def _builds(
    api: ApiClient,
    queries: list[str],
    clients: int,
    per_client: int,
    desc: str,
    session: bool = False,
    manifest: str = "full",
) -> tuple[list[float], list[float], dict[str, list[float]], list[int], float]:
    """Server ms, client ms, stage ms, tokens used, and wall seconds of the builds."""
    server: list[float] = []
    client: list[float] = []
    stages: dict[str, list[float]] = defaultdict(list)
    used: list[int] = []
    bar = progress(clients * per_client, desc, "build")

    async def one_client(offset: int) -> None:
        for i in range(per_client):
            query = queries[(offset + i) % len(queries)]
            built, elapsed_ms = await api.build(_request(query, session, manifest))
            server.append(built.timings_ms["total"])
            client.append(elapsed_ms)
            used.append(built.totals.used)
            for stage, ms in built.timings_ms.items():
                stages[stage].append(ms)
            bar.update(1)

    started = time.perf_counter()
    await asyncio.gather(*(one_client(c * per_client) for c in range(clients)))
    wall = time.perf_counter() - started
    bar.close()
    return server, client, stages, used, wall


async def _compact_builds(
    api: ApiClient, queries: list[str]
) -> tuple[list[float], list[float]] | None:
    """Server and client ms of the seen inputs built with a compact manifest; none from a
    version without it."""
    try:
        server, client, _s, _u, _w = await _builds(
            api, queries, 1, len(queries), "c=1, seen, compact", manifest="compact"
        )
    except ApiError:
        return None
    return server, client


async def _step(
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
    stored, write_seconds = await _load(api, MEASURED, generator, size - current)
    embed_seconds = await wait_for_background(api, f"embed to {size:,}")
    lag_bulk = await _lag_bulk(api, stored)
    lag_idle = await _lag_idle(api, generator)

    def fresh(count: int) -> list[str]:  # inputs no build has had: each build embeds its own
        return list(itertools.islice(inputs, count))

    await _builds(api, fresh(20), 1, 20, "warm-up")
    queries = fresh(QUERIES)
    server1, client1, stages1, used, _wall = await _builds(api, queries, 1, len(queries), "c=1")
    seen, seen_client, _s, _u, _w = await _builds(api, queries, 1, len(queries), "c=1, seen before")
    compact = await _compact_builds(api, queries)
    appended = await appended_builds(
        api, MEASURED, [_request(q) for q in fresh(APPENDED)], "c=1, appended"
    )
    cpu_before = _cpu_seconds(service)
    server16, client16, _s, _u, wall16 = await _builds(
        api,
        fresh(CONCURRENT_CLIENTS * BUILDS_PER_CLIENT),
        CONCURRENT_CLIENTS,
        BUILDS_PER_CLIENT,
        f"c={CONCURRENT_CLIENTS}",
    )
    cpu_ms = {
        part: round((after - before) * 1000 / len(server16), 1)
        for part, before, after in zip(CPU_PARTS, cpu_before, _cpu_seconds(service), strict=True)
    }
    with_session, _c, session_stages, _u, _w = await _builds(
        api, fresh(QUERIES), 1, QUERIES, f"c=1, session of {SESSION_MESSAGES}", session=True
    )
    # The service's own choice between an exact scan and HNSW, from the same settings.
    exact = size <= Settings().context.exact_search_max_memories
    floor = await measure_floor(
        service.pg_socket_dir, "context_engine", MEASURED, queries, embedder, exact
    )
    floor_all = await measure_floor(
        service.pg_socket_dir, "context_engine", MEASURED, queries, embedder, exact, "all"
    )
    floor_ms, floor_all_ms = percentiles(floor.total_ms), percentiles(floor_all.total_ms)
    server_c1, session_c1 = percentiles(server1), percentiles(with_session)
    added = len(stored)
    return SizeStep(
        size=size,
        tenant_memories=tenant_memories + added + IDLE_WRITES,
        exact_search=exact,
        added=added,
        write_seconds=round(write_seconds, 1),
        writes_per_second=round(added / write_seconds, 1),
        embed_wait_seconds=round(embed_seconds, 1),
        embeds_per_second=round(added / (write_seconds + embed_seconds), 1),
        lag_bulk_ms=lag_bulk,
        lag_idle_ms=lag_idle,
        server_c1=server_c1,
        server_c1_seen=percentiles(seen),
        server_c1_appended=percentiles(appended),
        client_c1_seen=percentiles(seen_client),
        server_c1_compact=percentiles(compact[0]) if compact else None,
        client_c1_compact=percentiles(compact[1]) if compact else None,
        client_c1=percentiles(client1),
        server_c16=percentiles(server16),
        client_c16=percentiles(client16),
        builds_per_second_c16=round(len(server16) / wall16, 1),
        stages_c1={k: percentiles(v) for k, v in stages1.items()},
        tokens_used_mean=round(sum(used) / max(len(used), 1), 1),
        floor_ms=floor_ms,
        floor_embed_ms=percentiles(floor.embed_ms),
        floor_sql_ms=percentiles(floor.sql_ms),
        floor_rows_mean=round(floor.rows_mean, 1),
        ratio_p50=round(server_c1.p50 / max(floor_ms.p50, 1e-6), 2),
        ratio_p95=round(server_c1.p95 / max(floor_ms.p95, 1e-6), 2),
        memory_mib=sampler.take_peaks(),
        floor_all_ms=floor_all_ms,
        floor_all_sql_ms=percentiles(floor_all.sql_ms),
        floor_all_rows_mean=round(floor_all.rows_mean, 1),
        ratio_all_p50=round(server_c1.p50 / max(floor_all_ms.p50, 1e-6), 2),
        ratio_all_p95=round(server_c1.p95 / max(floor_all_ms.p95, 1e-6), 2),
        session_c1=session_c1,
        stages_session_c1={k: percentiles(v) for k, v in session_stages.items()},
        session_ratio_p50=round(session_c1.p50 / max(server_c1.p50, 1e-6), 2),
        session_ratio_p95=round(session_c1.p95 / max(server_c1.p95, 1e-6), 2),
        cpu_ms_per_build_c16=cpu_ms,
    )


def _cpu_seconds(service: Service) -> tuple[float, float, float]:
    """CPU seconds used so far by the service's API processes, its PostgreSQL, and this
    benchmark (its HTTP client)."""
    return (*service.cpu_seconds(), benchmark_cpu_seconds())


async def _measure(
    sizes: tuple[int, ...], skip_100k: bool, commit: str | None, workers: int
) -> SpeedResult:
    started = time.perf_counter()
    generator = CorpusGenerator(SEED)
    inputs = new_inputs(SEED + 1, QUERIES)
    # The floor embeds with the service's model: its server inherits this environment.
    model = Settings().embeddings
    embedder = LocalEmbedder(model.model, models_dir=model.models_dir)
    steps: list[SizeStep] = []
    with Service(env={"CE_API__WORKERS": str(workers)}, commit=commit) as service:
        sampler = RssSampler(service)
        sampler.start()
        async with ApiClient(service.base_url, service.api_key, max_connections=32) as api:
            tenant = 0
            for agent, count in NEIGHBOUR_AGENTS.items():
                await api.put_agent(agent, f"Platform team agent {agent}")
                stored, _seconds = await _load(api, agent, generator, count)
                tenant += len(stored)
            # Their embeddings first, so the first step's rate counts the measured agent only.
            await wait_for_background(api, "embed other agents")
            await api.put_agent(MEASURED, "Platform team agent")
            await _open_session(api)
            current = 0
            for size in sizes:
                step = await _step(
                    service, api, sampler, embedder, generator, inputs, size, current, tenant
                )
                steps.append(step)
                tenant, current = step.tenant_memories, size
                # Written after every step, so a long run that stops early keeps what it measured.
                result = SpeedResult(
                    run={
                        **run_info(commit),
                        "minutes": round((time.perf_counter() - started) / 60, 1),
                        "api_processes": workers,
                    },
                    seed=SEED,
                    budget=BUDGET,
                    agents={MEASURED: size, **NEIGHBOUR_AGENTS},
                    steps=list(steps),
                    skipped_100k=skip_100k,
                    other_cpu_share=sampler.other_cpu_share(),
                )
                _write(result)
        sampler.stop()
    return result


def _write(result: SpeedResult) -> None:
    workers = result.run.get("api_processes", 1)
    name = "speed" if workers == 1 else f"speed-{workers}-processes"
    path = write_json(name, asdict(result))
    chart = charts.speed_chart(result, RESULTS_DIR / f"{name}.png")
    print()
    print(tables(result))
    print(f"\nWrote {path} and {chart}\n")


def run(
    skip_100k: bool = False,
    sizes: tuple[int, ...] = SIZES,
    commit: str | None = None,
    workers: int = 1,
) -> SpeedResult:
    """The whole speed benchmark: load, builds at 1 and 16 clients, floor, table, JSON, chart;
    with `workers` API processes (the results of more than one go to a file of their own)."""
    chosen = tuple(s for s in sorted(sizes) if not (skip_100k and s >= 100_000))
    if not chosen:
        raise ValueError("no size left to measure")
    return asyncio.run(_measure(chosen, skip_100k, commit, workers))
