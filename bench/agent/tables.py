"""The typed-memory benchmark's result and its tables."""

from dataclasses import dataclass, field

from pydantic import JsonValue

from bench.agent.metrics import OVERALL, BuildOutcome, Scores
from bench.common.results import Percentiles, table

_HEADERS = [
    "category",
    "questions",
    "recall",
    "recall ≥ summary",
    "precision",
    "censor recall",
    "censors expected",
    "forbidden in",
    "items (mean)",
    "utilization",
    "overflows",
]


@dataclass(frozen=True)
class AgentStats:
    """Ingest and builds of the run."""

    memories: int
    rejected: dict[str, str]
    patch_errors: list[str]
    write_seconds: float
    background_wait_seconds: float
    builds: int
    failed_builds: list[str]
    concurrency: int
    server_ms: dict[int, Percentiles]
    client_ms: dict[int, Percentiles]
    recount_mismatches: int
    detail_levels: dict[str, int]
    other_cpu_share: float


@dataclass(frozen=True)
class AgentResult:
    run: dict[str, JsonValue]
    data: dict[str, JsonValue]
    scores: dict[int, dict[str, Scores]]  # budget -> category (and "overall") -> scores
    stats: AgentStats
    builds: list[BuildOutcome] = field(default_factory=list)


def _row(name: str, s: Scores) -> list[object]:
    return [
        f"**{name}**" if name == OVERALL else name,
        s.questions,
        s.recall,
        s.recall_summary,
        s.precision,
        "" if s.censor_recall is None else s.censor_recall,
        s.censors_expected,
        s.forbidden_included,
        s.items_mean,
        s.utilization,
        s.overflows,
    ]


def budget_table(by_category: dict[str, Scores]) -> str:
    """One budget: a row per category, then the overall row."""
    rows = [_row(name, s) for name, s in by_category.items() if name != OVERALL]
    rows.append(_row(OVERALL, by_category[OVERALL]))
    return table(_HEADERS, rows)


def overall_table(result: AgentResult) -> str:
    """The overall row of every budget."""
    return table(
        ["budget", *_HEADERS[1:]],
        [[budget, *_row(OVERALL, s[OVERALL])[1:]] for budget, s in result.scores.items()],
    )


def tables(result: AgentResult) -> str:
    """Overall by budget, each budget by category, and the builds."""
    stats = result.stats
    parts = ["Overall, by budget (tokens of the agent's model)", overall_table(result)]
    for budget, by_category in result.scores.items():
        parts += ["", f"By category at {budget:,} tokens", budget_table(by_category)]
    latency = ", ".join(
        f"{b}: {stats.server_ms[b].p50} / {stats.server_ms[b].p95}" for b in stats.server_ms
    )
    parts += [
        "",
        f"Builds: {stats.builds} at {stats.concurrency} concurrent clients "
        f"({len(stats.failed_builds)} failed); server p50 / p95 ms by budget: {latency}",
        f"Detail levels of included memories: {stats.detail_levels}; "
        f"recount of the text != totals.used: {stats.recount_mismatches}",
        f"Ingest: {stats.memories} memories in {stats.write_seconds} s "
        f"({len(stats.rejected)} refused, {len(stats.patch_errors)} patches refused), then "
        f"{stats.background_wait_seconds} s until the background work was done",
        f"Other processes on the machine used {stats.other_cpu_share:.0%} of its CPU meanwhile",
    ]
    return "\n".join(parts)
