"""The quality benchmark's result, its targets and floors, and its tables."""

from dataclasses import dataclass, field

from pydantic import JsonValue

from bench.common.locomo import category_label
from bench.common.recall import BUDGETS, BudgetSummary
from bench.common.results import Percentiles, table
from bench.common.sampling import MemoryPeaks

TARGETS = {1000: 0.85, 2000: 0.92, 4000: 0.95}  # issue 4, for the service
FLOORS = {  # ../shared/bench/README.md (tokens counted there as len/4)
    "bm25": {500: 0.632, 1000: 0.684, 2000: 0.723, 4000: 0.780},
    "dense": {500: 0.527, 1000: 0.639, 2000: 0.740, 4000: 0.841},
    "fusion": {500: 0.653, 1000: 0.753, 2000: 0.833, 4000: 0.887},
    "fusion+neighbours": {500: 0.701, 1000: 0.796, 2000: 0.872, 4000: 0.913},
}


@dataclass(frozen=True)
class ServiceStats:
    """Ingest, build latency, budget checks and memory of the service during the run."""

    turns: int
    write_seconds: float
    writes_per_second: float
    embed_wait_seconds: float
    builds: int
    concurrency: int
    build_seconds: float
    builds_per_second: float
    server_ms: dict[int, Percentiles]
    client_ms: dict[int, Percentiles]
    stages_ms: dict[str, Percentiles]
    overflows: int
    recount_overflows: int
    recount_mismatches: int
    detail_levels: dict[str, int]
    memory_mib: dict[str, MemoryPeaks]
    api_vmhwm_mib: float
    other_cpu_share: float


@dataclass(frozen=True)
class QualityResult:
    run: dict[str, JsonValue]
    data: dict[str, JsonValue]
    service: dict[int, BudgetSummary]
    service_stats: ServiceStats
    baselines: dict[str, dict[int, BudgetSummary]]
    baseline_overflows: dict[str, int]
    targets: dict[int, float] = field(default_factory=lambda: dict(TARGETS))
    floors: dict[str, dict[int, float]] = field(default_factory=lambda: dict(FLOORS))


def _recall_rows(result: QualityResult) -> list[list[object]]:
    rows: list[list[object]] = [
        ["**service**", *[result.service[b].recall for b in BUDGETS]],
        ["service, at summary detail or more", *[_or_blank(result.service[b]) for b in BUDGETS]],
        ["target (issue 4)", *[result.targets.get(b, "") for b in BUDGETS]],
    ]
    for method, summary in result.baselines.items():
        rows.append([method, *[summary[b].recall for b in BUDGETS]])
    for method, floor in result.floors.items():
        rows.append([f"{method}, floor (len/4)", *[floor[b] for b in BUDGETS]])
    return rows


def _or_blank(summary: BudgetSummary) -> object:
    return "" if summary.recall_summary is None else summary.recall_summary


def _category_rows(result: QualityResult, summary_detail: bool) -> list[list[object]]:
    """A row per category of the data, in number order: questions, then recall per budget."""
    rows: list[list[object]] = []
    for name in result.service[BUDGETS[-1]].by_category:
        values = [
            (s.by_category_summary if summary_detail else s.by_category).get(name, "")
            for s in (result.service[b] for b in BUDGETS)
        ]
        rows.append([category_label(name), _count(result, name), *values])
    return rows


def _builds_table(result: QualityResult) -> str:
    """Tokens used and latency of the service's builds, per budget."""
    stats = result.service_stats
    return table(
        ["budget", "tokens used (mean)", "server p50", "p95", "p99", "client p50", "p95", "p99"],
        [
            [
                b,
                result.service[b].tokens_mean,
                stats.server_ms[b].p50,
                stats.server_ms[b].p95,
                stats.server_ms[b].p99,
                stats.client_ms[b].p50,
                stats.client_ms[b].p95,
                stats.client_ms[b].p99,
            ]
            for b in BUDGETS
        ],
    )


def tables(result: QualityResult) -> str:
    """Recall by budget, all-evidence share, recall by category, builds."""
    budgets = [str(b) for b in BUDGETS]
    stats = result.service_stats
    parts = [
        "Evidence recall by budget (tokens, o200k_base; baselines pack whole turns, so their "
        "recall at summary detail or more is the same)",
        table(["method", *budgets], _recall_rows(result)),
        "",
        "Share of questions with all their evidence in the context",
        table(
            ["method", *budgets],
            [
                ["service", *[result.service[b].all_evidence for b in BUDGETS]],
                *[[m, *[s[b].all_evidence for b in BUDGETS]] for m, s in result.baselines.items()],
            ],
        ),
        "",
        "Service recall by question category (evidence in at any detail)",
        table(["category", "questions", *budgets], _category_rows(result, False)),
        "",
        "Service recall at summary detail or more by question category (an evidence turn listed "
        "only as a one-line micro does not count)",
        table(["category", "questions", *budgets], _category_rows(result, True)),
        "",
        f"Service builds ({stats.builds} at {stats.concurrency} concurrent clients, "
        f"{stats.builds_per_second} builds/s; latency in ms)",
        _builds_table(result),
        "",
        f"Overflows (used > budget): {stats.overflows}; recounted context text over budget: "
        f"{stats.recount_overflows}; recount != totals.used: {stats.recount_mismatches}; "
        f"baseline packs over budget: {sum(result.baseline_overflows.values())}",
        f"Ingest: {stats.turns} turns at {stats.writes_per_second} writes/s, then "
        f"{stats.embed_wait_seconds} s until every embedding was done",
        f"Peak RSS (MiB): API {stats.api_vmhwm_mib}; PostgreSQL during builds "
        f"{stats.memory_mib['builds'].postgres_rss_mib} RSS / "
        f"{stats.memory_mib['builds'].postgres_pss_mib} PSS",
        f"Other processes on the machine used {stats.other_cpu_share:.0%} of its CPU meanwhile",
    ]
    return "\n".join(parts)


def _count(result: QualityResult, name: str) -> int:
    counts = result.data.get("categories")
    if isinstance(counts, dict):
        value = counts.get(name)
        if isinstance(value, int):
            return value
    return 0
