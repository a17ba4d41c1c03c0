"""Evidence recall on LoCoMo under a token budget: the service over HTTP, and the baselines."""

import asyncio
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path

from pydantic import JsonValue

from app.providers.tokenizer import TokenCounter
from bench.common.client import ApiClient
from bench.common.ingest import ingest_turns, progress, wait_for_background
from bench.common.locomo import Conversation, describe, load
from bench.common.recall import BUDGETS, Outcome, recall_of, summarise
from bench.common.results import RESULTS_DIR, percentiles, run_info, write_json
from bench.common.sampling import RssSampler
from bench.common.server import Service
from bench.quality.baselines import run_baselines
from bench.quality.chart import quality_chart
from bench.quality.tables import QualityResult, ServiceStats, tables


@dataclass
class ServiceRuns:
    """Everything measured on the service's builds."""

    outcomes: list[Outcome] = field(default_factory=list)
    server_ms: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    client_ms: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    stages: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    details: Counter[str] = field(default_factory=Counter)
    overflows: int = 0
    recount_overflows: int = 0
    recount_mismatches: int = 0


async def _builds(
    api: ApiClient,
    conversations: list[Conversation],
    dia_of: dict[uuid.UUID, str],
    counter: TokenCounter,
    concurrency: int,
) -> ServiceRuns:
    """Every question at every budget, from a few concurrent clients."""
    runs = ServiceRuns()
    queue = iter(
        [(conv, q, budget) for conv in conversations for q in conv.questions for budget in BUDGETS]
    )
    bar = progress(
        sum(len(c.questions) for c in conversations) * len(BUDGETS), "context builds", "build"
    )

    async def client() -> None:
        for conv, question, budget in queue:
            request: dict[str, JsonValue] = {
                "agent_id": conv.sample_id,
                "input": question.text,
                "budget": budget,
                "now": (conv.last_time + timedelta(hours=1)).isoformat(),
            }
            built, elapsed_ms = await api.build(request)
            items = [item for layer in built.layers for item in layer.items]
            included = {dia_of[i.memory_id] for i in items if i.memory_id in dia_of}
            at_summary = {
                dia_of[i.memory_id] for i in items if i.memory_id in dia_of and i.detail != "micro"
            }
            runs.details.update(item.detail for item in items)
            runs.outcomes.append(
                Outcome(
                    question.category,
                    budget,
                    recall_of(question, included),
                    built.totals.used,
                    recall_of(question, at_summary),
                )
            )
            runs.server_ms[budget].append(built.timings_ms["total"])
            runs.client_ms[budget].append(elapsed_ms)
            for stage, ms in built.timings_ms.items():
                runs.stages[stage].append(ms)
            recount = counter.count(built.context)
            runs.overflows += built.totals.used > budget
            runs.recount_overflows += recount > budget
            runs.recount_mismatches += recount != built.totals.used
            bar.update(1)

    await asyncio.gather(*(client() for _ in range(concurrency)))
    bar.close()
    return runs


async def _measure_service(
    conversations: list[Conversation], concurrency: int, commit: str | None
) -> tuple[ServiceRuns, ServiceStats, TokenCounter]:
    with Service(commit=commit) as service:
        sampler = RssSampler(service)
        sampler.start()
        counter = TokenCounter(service.data_dir / "tiktoken")
        async with ApiClient(service.base_url, service.api_key) as api:
            started = time.perf_counter()
            dia_of = await ingest_turns(api, conversations)
            write_seconds = time.perf_counter() - started
            embed_seconds = await wait_for_background(api, "embed turns")
            ingest_peaks = sampler.take_peaks()
            started = time.perf_counter()
            runs = await _builds(api, conversations, dia_of, counter, concurrency)
            build_seconds = time.perf_counter() - started
        build_peaks = sampler.take_peaks()
        other_cpu = sampler.other_cpu_share()
        sampler.stop()
        api_hwm = service.api_peak_rss_mib()
    stats = ServiceStats(
        turns=len(dia_of),
        write_seconds=round(write_seconds, 1),
        writes_per_second=round(len(dia_of) / write_seconds, 1),
        embed_wait_seconds=round(embed_seconds, 1),
        builds=len(runs.outcomes),
        concurrency=concurrency,
        build_seconds=round(build_seconds, 1),
        builds_per_second=round(len(runs.outcomes) / build_seconds, 1),
        server_ms={b: percentiles(runs.server_ms[b]) for b in BUDGETS},
        client_ms={b: percentiles(runs.client_ms[b]) for b in BUDGETS},
        stages_ms={s: percentiles(v) for s, v in runs.stages.items()},
        overflows=runs.overflows,
        recount_overflows=runs.recount_overflows,
        recount_mismatches=runs.recount_mismatches,
        detail_levels=dict(runs.details),
        memory_mib={"ingest": ingest_peaks, "builds": build_peaks},
        api_vmhwm_mib=api_hwm,
        other_cpu_share=other_cpu,
    )
    return runs, stats, counter


def run(
    data: Path, concurrency: int = 4, limit: int | None = None, commit: str | None = None
) -> QualityResult:
    """The whole quality benchmark: service, baselines, tables, JSON and chart."""
    loaded, repairs = load(data)
    conversations = loaded[:limit] if limit else loaded
    turns = sum(len(c.turns) for c in conversations)
    questions = sum(len(c.questions) for c in conversations)
    print(
        f"{data}: {len(conversations)} conversations, {turns} turns, {questions} questions "
        f"(evidence repairs: {repairs.as_json()})"
    )
    runs, stats, counter = asyncio.run(_measure_service(conversations, concurrency, commit))
    baseline_outcomes, baseline_overflows = run_baselines(conversations, BUDGETS, counter)
    result = QualityResult(
        run=run_info(commit),
        data=describe(data, conversations, repairs),
        service=summarise(runs.outcomes),
        service_stats=stats,
        baselines={m: summarise(o) for m, o in baseline_outcomes.items()},
        baseline_overflows=dict(baseline_overflows),
    )
    path = write_json("quality", asdict(result))
    chart = quality_chart(result, RESULTS_DIR / "quality.png")
    print()
    print(tables(result))
    print(f"\nWrote {path} and {chart}")
    return result
