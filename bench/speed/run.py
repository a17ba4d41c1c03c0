"""Latency and throughput at 1,000 / 10,000 / 100,000 memories per agent, with the floor."""

import asyncio
import time
from dataclasses import asdict

from app.core.config import Settings
from app.providers.embeddings import LocalEmbedder
from bench.common.client import ApiClient
from bench.common.corpus import CorpusGenerator
from bench.common.ingest import wait_for_background
from bench.common.results import RESULTS_DIR, run_info, write_json
from bench.common.sampling import RssSampler
from bench.common.script import script
from bench.common.server import Service
from bench.speed.chart import speed_chart
from bench.speed.inputs import new_inputs
from bench.speed.plan import (
    BUDGET,
    MEASURED,
    NEIGHBOUR_AGENTS,
    QUERIES,
    SEED,
    SESSION,
    SESSION_MESSAGES,
    SIZES,
)
from bench.speed.results import SizeStep, SpeedResult
from bench.speed.step import load, measure_size
from bench.speed.tables import tables


async def _open_session(api: ApiClient) -> None:
    """The measured agent's conversation, its summaries and vectors made before any build."""
    turns = script(SEED, SESSION_MESSAGES)
    for start in range(0, len(turns), 20):
        batch = [dict(m) for turn in turns[start : start + 20] for m in turn.messages]
        await api.append_messages(MEASURED, SESSION, batch)
    await wait_for_background(api, "session summaries")


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
                stored, _seconds = await load(api, agent, generator, count)
                tenant += len(stored)
            # Their embeddings first, so the first step's rate counts the measured agent only.
            await wait_for_background(api, "embed other agents")
            await api.put_agent(MEASURED, "Platform team agent")
            await _open_session(api)
            current = 0
            for size in sizes:
                step = await measure_size(
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
    chart = speed_chart(result, RESULTS_DIR / f"{name}.png")
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
