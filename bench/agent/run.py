"""Typed memory under a token budget: curated questions over agents' decisions, facts,
procedures, episodes and censors, the service over HTTP."""

import asyncio
import hashlib
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pydantic import JsonValue

from app.providers.tokenizer import ENCODINGS, TokenCounter
from bench.agent.chart import agent_chart
from bench.agent.data import AgentBenchFile, AgentSpec, QuestionSpec, counts, load
from bench.agent.ingest import AgentIngest, ingest
from bench.agent.metrics import BUDGETS, BuildOutcome, included, outcome, summarise
from bench.agent.tables import AgentResult, AgentStats, tables
from bench.common.build_view import BuildView
from bench.common.client import ApiClient, ApiError
from bench.common.ingest import progress, wait_for_background
from bench.common.results import RESULTS_DIR, percentiles, run_info, write_json
from bench.common.sampling import RssSampler
from bench.common.server import Service


@dataclass
class BuildRuns:
    """Everything measured on the builds."""

    outcomes: list[BuildOutcome] = field(default_factory=list)
    server_ms: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    client_ms: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    details: Counter[str] = field(default_factory=Counter)
    failed: list[str] = field(default_factory=list)
    recount_mismatches: int = 0


def _request(agent: AgentSpec, question: QuestionSpec, budget: int) -> dict[str, JsonValue]:
    request: dict[str, JsonValue] = {
        "agent_id": agent.agent_id,
        "input": question.input,
        "budget": budget,
    }
    if question.now:
        request["now"] = question.now
    if question.frame:
        request["frame"] = question.frame
    return request


def _recount(counter: TokenCounter, build: BuildView) -> int:
    encoding = next((e for e in ENCODINGS if e == build.totals.encoding), None)
    return counter.count(build.context, encoding)


async def _builds(
    api: ApiClient,
    agents: list[AgentSpec],
    written: dict[str, AgentIngest],
    counter: TokenCounter,
    concurrency: int,
) -> BuildRuns:
    """Every question at every budget, from a few concurrent clients."""
    runs = BuildRuns()
    work = [(a, q, b) for a in agents for q in a.questions for b in BUDGETS]
    keys = {a.agent_id: written[a.agent_id].key_of() for a in agents}
    patterns = {a.agent_id: a.censor_patterns() for a in agents}
    kinds = {a.agent_id: a.kinds() for a in agents}
    queue = iter(work)
    bar = progress(len(work), "context builds", "build")

    async def client() -> None:
        for agent, question, budget in queue:
            name = agent.agent_id
            try:
                raw, elapsed_ms = await api.build_json(_request(agent, question, budget))
            except ApiError as error:
                runs.failed.append(f"{name}/{question.id} at {budget}: {error}")
                bar.update(1)
                continue
            build = BuildView.model_validate_json(raw)
            details, unknown = included(build, keys[name], patterns[name])
            recount = _recount(counter, build)
            tokens = (build.totals.used, recount)
            runs.outcomes.append(
                outcome(name, question, budget, details, kinds[name], tokens, unknown)
            )
            runs.details.update(details.values())
            runs.recount_mismatches += recount != build.totals.used
            runs.server_ms[budget].append(build.timings_ms.get("total", 0.0))
            runs.client_ms[budget].append(elapsed_ms)
            bar.update(1)

    await asyncio.gather(*(client() for _ in range(concurrency)))
    bar.close()
    return runs


async def _measure(
    data: AgentBenchFile, concurrency: int, commit: str | None
) -> tuple[BuildRuns, AgentStats]:
    agents = data.agents
    with Service(commit=commit) as service:
        sampler = RssSampler(service)
        sampler.start()
        counter = TokenCounter(service.data_dir / "tiktoken")
        async with ApiClient(service.base_url, service.api_key) as api:
            started = time.perf_counter()
            written = await ingest(api, agents)
            write_seconds = time.perf_counter() - started
            wait_seconds = await wait_for_background(api, "embed and summarise")
            runs = await _builds(api, agents, written, counter, concurrency)
        other_cpu = sampler.other_cpu_share()
        sampler.stop()
    stats = AgentStats(
        memories=sum(len(w.ids) for w in written.values()),
        rejected={f"{a}/{k}": e for a, w in written.items() for k, e in w.rejected.items()},
        patch_errors=[e for w in written.values() for e in w.patch_errors],
        write_seconds=round(write_seconds, 1),
        background_wait_seconds=round(wait_seconds, 1),
        builds=len(runs.outcomes),
        failed_builds=runs.failed,
        concurrency=concurrency,
        server_ms={b: percentiles(runs.server_ms[b]) for b in BUDGETS},
        client_ms={b: percentiles(runs.client_ms[b]) for b in BUDGETS},
        recount_mismatches=runs.recount_mismatches,
        detail_levels=dict(runs.details),
        other_cpu_share=other_cpu,
    )
    return runs, stats


def run(data_path: Path, concurrency: int = 4, commit: str | None = None) -> AgentResult:
    """The whole benchmark: ingest, builds, tables, JSON and chart."""
    data = load(data_path)
    described = counts(data)
    print(f"{data_path}: {data.name} (version {data.version}): {described}")
    runs, stats = asyncio.run(_measure(data, concurrency, commit))
    for failure in runs.failed[:5]:
        print(f"warning: build failed: {failure}")
    order = {(a.agent_id, q.id): i for a in data.agents for i, q in enumerate(a.questions)}
    builds = sorted(runs.outcomes, key=lambda o: (o.agent, order[(o.agent, o.question)], o.budget))
    result = AgentResult(
        run=run_info(commit),
        data={
            "file": data_path.name,
            "name": data.name,
            "version": data.version,
            "sha256": hashlib.sha256(data_path.read_bytes()).hexdigest()[:16],
            **described,
        },
        scores=summarise(runs.outcomes),
        stats=stats,
        builds=builds,
    )
    path = write_json("agent", asdict(result))
    chart = agent_chart(result, RESULTS_DIR / "agent.png")
    print()
    print(tables(result))
    print(f"\nWrote {path} and {chart}")
    return result
