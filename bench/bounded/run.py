"""Bounded working context (seed 002, issue 18) over HTTP, in one service: the design's proof run
with the working-memory tokens at each step, then 1,000 turns with 200 efforts (a build per
turn): the working-memory tokens' ceiling and curve, and whether every evicted effort is found
by the model's search_memory tool from its topic."""

import asyncio
import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from matplotlib.figure import Figure

from app.providers.tokenizer import TokenCounter
from bench.bounded.script import LongRun, ProofRow, long_run, proof_run, wait_for_summaries
from bench.bounded.session import AGENT, AVAILABLE, BoundedSession
from bench.common.client import ApiClient
from bench.common.results import RESULTS_DIR, run_info, table, write_json
from bench.common.sampling import RssSampler
from bench.common.server import Service

SEED = 20261123
EFFORTS, PER_EFFORT = 200, 5  # 1,000 turns: 3 in each effort, 2 ambient after it
RECALL_TARGET = 0.95


@dataclass(frozen=True)
class BoundedRunResult:
    run: dict[str, object]
    proof: list[dict[str, object]]
    proof_search_rank: int
    turns: int
    efforts: int
    working_tokens: list[int]
    summaries_shown: list[int]
    session_tokens: int
    max_working_tokens: int
    max_working_tokens_last_half: int
    builds_over_available: int
    evicted: int
    recall_at_1: float
    recall_at_5: float
    missed: list[str]
    expanded: list[str]
    referenced: list[str]
    other_cpu_share: float


async def _recall(session: BoundedSession, run: LongRun) -> tuple[int, int, int, list[str]]:
    """Evicted efforts, and how many the search finds first and in its top 5 from their topic."""
    await wait_for_summaries(session)
    evicted = [e["effort_id"] for e in await session.efforts() if not e["in_working_memory"]]
    first = top5 = 0
    missed = []
    for effort_id in evicted:
        found = await session.search(f"What did we decide about the {run.topics[effort_id]}?")
        first += found[:1] == [effort_id]
        top5 += effort_id in found
        if effort_id not in found:
            missed.append(effort_id)
    return len(evicted), first, top5, missed


async def _measure(
    commit: str | None, efforts: int
) -> tuple[list[ProofRow], int, LongRun, tuple[int, int, int, list[str]], int, float]:
    with Service(commit=commit) as service:
        counter = TokenCounter(service.data_dir / "tiktoken")
        async with ApiClient(service.base_url, service.api_key) as api:
            sampler = RssSampler(service)
            sampler.start()
            await api.put_agent(AGENT, "Bounded, an assistant of long conversations")
            rows, rank = await proof_run(BoundedSession(api, "proof"), counter)
            long = BoundedSession(api, "long")
            run = await long_run(long, counter, efforts, PER_EFFORT, SEED)
            recall = await _recall(long, run)
            stored = await long._call("GET", "")
            share = sampler.other_cpu_share()
            sampler.stop()
    return rows, rank, run, recall, int(stored["tokens"]), share


def _proof_table(rows: list[dict[str, object]]) -> str:
    return table(
        ["Step", "Action", "Summaries in WM", "Raw efforts", "Ambient in WM", "Evicted",
         "WM tokens"],
        [[r["step"], r["action"], f"{len(r['summaries'])} ({', '.join(r['summaries'])})",  # type: ignore[arg-type]
          ", ".join(r["raw"]) or "-", f"{(int(r['ambient_messages']) + 1) // 2} exchanges",  # type: ignore[arg-type,call-overload]
          r["evicted"], r["working_tokens"]] for r in rows],
    )  # fmt: skip


def tables(result: BoundedRunResult) -> str:
    """The proof run's table and the long run's figures."""
    tokens = result.working_tokens
    long = table(
        ["Measure", "Value"],
        [
            ["turns / efforts", f"{result.turns} / {result.efforts}"],
            ["session tokens (all messages)", f"{result.session_tokens:,}"],
            ["working-memory tokens: max", result.max_working_tokens],
            ["  max over the last half", result.max_working_tokens_last_half],
            ["  median", int(statistics.median(tokens)) if tokens else 0],
            ["builds over available", result.builds_over_available],
            ["efforts evicted at the end", result.evicted],
            ["search from topic: recall@1", f"{result.recall_at_1:.3f}"],
            [f"search from topic: recall@5 (target {RECALL_TARGET})", f"{result.recall_at_5:.3f}"],
            ["expanded during the run", len(result.expanded)],
        ],
    )
    return f"{_proof_table(result.proof)}\n\n{long}"


def chart(result: BoundedRunResult, path: Path) -> Path:
    """The proof run's working-memory tokens by step; the long run's per turn, beside the
    session's growing total."""
    fig = Figure(figsize=(14, 5), dpi=110)
    proof, long = fig.subplots(1, 2)
    proof.bar([str(r["step"]) for r in result.proof],
              [int(r["working_tokens"]) for r in result.proof])  # type: ignore[call-overload]  # fmt: skip
    proof.set_ylabel("working-memory tokens")
    proof.set_title("Seed 002's proof run")
    proof.tick_params(axis="x", labelrotation=45)
    turns = list(range(1, len(result.working_tokens) + 1))
    long.plot(turns, result.working_tokens, linewidth=0.8, label="working memory")
    long.axhline(result.max_working_tokens, color="crimson", linestyle="--", label="its max")
    long.set_xlabel("turn")
    long.set_ylabel("tokens")
    long.set_ylim(0, max(result.max_working_tokens * 1.3, 1))
    long.set_title(
        f"{result.turns} turns, {result.efforts} efforts (session {result.session_tokens:,} "
        f"tokens, available {AVAILABLE:,})"
    )
    long.grid(alpha=0.3)
    long.legend(fontsize=8)
    fig.suptitle(f"{result.run.get('date')} · commit {result.run.get('commit')}", fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    return path


def run(commit: str | None = None, efforts: int = EFFORTS) -> BoundedRunResult:
    """The whole benchmark: proof run, long run, tables, JSON and chart."""
    started = time.perf_counter()
    rows, rank, long, (evicted, first, top5, missed), total, share = asyncio.run(
        _measure(commit, efforts)
    )
    tokens = [s.working_tokens for s in long.steps]
    half = tokens[len(tokens) // 2 :]
    result = BoundedRunResult(
        run={**run_info(commit), "minutes": round((time.perf_counter() - started) / 60, 1)},
        proof=[{"step": r.step, "action": r.action} | asdict(r.build) for r in rows],
        proof_search_rank=rank,
        turns=len(long.steps),
        efforts=efforts,
        working_tokens=tokens,
        summaries_shown=[len(s.summaries) for s in long.steps],
        session_tokens=total,
        max_working_tokens=max(tokens, default=0),
        max_working_tokens_last_half=max(half, default=0),
        builds_over_available=sum(1 for s in long.steps if not s.within_available),
        evicted=evicted,
        recall_at_1=round(first / evicted, 4) if evicted else 0.0,
        recall_at_5=round(top5 / evicted, 4) if evicted else 0.0,
        missed=missed,
        expanded=long.expanded,
        referenced=long.referenced,
        other_cpu_share=share,
    )
    path = write_json("bounded", asdict(result))
    drawn = chart(result, RESULTS_DIR / "bounded.png")
    print(tables(result))
    print(f"\nWrote {path} and {drawn}")
    return result
