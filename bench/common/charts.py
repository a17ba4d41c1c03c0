"""PNG charts of the results (matplotlib Figure objects: no display and no pyplot state)."""

import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from bench.common.recall import BUDGETS

if TYPE_CHECKING:
    from bench.agent.tables import AgentResult
    from bench.conversation.results import (
        BoundedResult,
        ConversationResult,
        LengthBucket,
        RecallResult,
    )
    from bench.quality.tables import QualityResult
    from bench.speed.results import SizeStep, SpeedResult


_STYLE = {"linewidth": 1.6, "marker": "o", "markersize": 4}


def quality_chart(result: "QualityResult", path: Path) -> Path:
    """Recall by budget (service, baselines, targets) and the service's recall by category."""
    fig = Figure(figsize=(13, 5), dpi=110)
    left, right = fig.subplots(1, 2)
    budgets = list(BUDGETS)
    left.plot(
        budgets,
        [result.service[b].recall for b in budgets],
        label="service",
        color="black",
        linewidth=2.6,
        marker="o",
    )
    if all(result.service[b].recall_summary is not None for b in budgets):
        left.plot(
            budgets,
            [result.service[b].recall_summary or 0.0 for b in budgets],
            label="service, at summary detail or more",
            color="black",
            linestyle="--",
            linewidth=1.6,
            marker="o",
        )
    for method, summary in result.baselines.items():
        left.plot(budgets, [summary[b].recall for b in budgets], label=method, **_STYLE)
    _targets(left, result.targets, "target (issue 4)")
    _recall_axis(left, budgets, "token budget (o200k_base)", "LoCoMo evidence recall by budget")

    names = list(result.service[budgets[-1]].by_category)
    width = 0.8 / len(budgets)
    for offset, budget in enumerate(budgets):
        xs = [i + (offset - (len(budgets) - 1) / 2) * width for i in range(len(names))]
        ys = [result.service[budget].by_category.get(n, 0.0) for n in names]
        right.bar(xs, ys, width=width, label=f"{budget} tokens")
    right.set_xticks(range(len(names)), names)
    right.set_ylim(0, 1)
    right.set_ylabel("mean evidence recall")
    right.set_title("Service recall by question category")
    right.grid(axis="y", alpha=0.3)
    right.legend(fontsize=8)
    _finish(fig, result.run, path)
    return path


def agent_chart(result: "AgentResult", path: Path) -> Path:
    """The overall measures by budget, and recall by category at each budget."""
    fig = Figure(figsize=(13, 5), dpi=110)
    left, right = fig.subplots(1, 2)
    budgets = sorted(result.scores)
    overall = [result.scores[b]["overall"] for b in budgets]
    lines: list[tuple[str, list[float]]] = [
        ("recall", [s.recall for s in overall]),
        ("recall at summary or more", [s.recall_summary for s in overall]),
        ("precision", [s.precision for s in overall]),
        (
            "censor recall",
            [math.nan if s.censor_recall is None else s.censor_recall for s in overall],
        ),
        ("utilization", [s.utilization for s in overall]),
    ]
    for name, values in lines:
        left.plot(budgets, values, label=name, **_STYLE)
    left.set_xscale("log", base=2)
    left.set_xticks(budgets, [str(b) for b in budgets])
    left.set_ylim(0, 1)
    left.set_xlabel("token budget")
    left.set_title(f"Typed memory ({result.data.get('name')}): overall by budget")
    left.grid(alpha=0.3)
    left.legend(fontsize=8, loc="lower right")

    names = [n for n in result.scores[budgets[0]] if n != "overall"] if budgets else []
    width = 0.8 / max(len(budgets), 1)
    for offset, budget in enumerate(budgets):
        xs = [i + (offset - (len(budgets) - 1) / 2) * width for i in range(len(names))]
        ys = [result.scores[budget][n].recall if n in result.scores[budget] else 0.0 for n in names]
        right.bar(xs, ys, width=width, label=f"{budget} tokens")
    right.set_xticks(range(len(names)), names, rotation=20)
    right.set_ylim(0, 1)
    right.set_ylabel("mean recall of expected memories")
    right.set_title("Recall by question category")
    right.grid(axis="y", alpha=0.3)
    right.legend(fontsize=8)
    _finish(fig, result.run, path)
    return path


def speed_chart(result: "SpeedResult", path: Path) -> Path:
    """Build latency by agent size at concurrency 1 and 16, and builds per second at 16."""
    sizes = [step.size for step in result.steps]
    fig = Figure(figsize=(16, 5), dpi=110)
    left, middle, right = fig.subplots(1, 3)
    single: list[tuple[str, Callable[[SizeStep], float]]] = [
        ("server p50", lambda s: s.server_c1.p50),
        ("server p95", lambda s: s.server_c1.p95),
        ("server p99", lambda s: s.server_c1.p99),
        ("client p95", lambda s: s.client_c1.p95),
        ("floor p95, any word (embed + SQL)", lambda s: s.floor_ms.p95),
        ("floor p95, all words", lambda s: s.floor_all_ms.p95 if s.floor_all_ms else math.nan),
    ]
    sixteen: list[tuple[str, Callable[[SizeStep], float]]] = [
        ("server p50", lambda s: s.server_c16.p50),
        ("server p95", lambda s: s.server_c16.p95),
        ("client p50", lambda s: s.client_c16.p50),
        ("client p95", lambda s: s.client_c16.p95),
    ]
    for axis, lines, title in (
        (left, single, "Build latency, 1 client"),
        (middle, sixteen, "Build latency, 16 concurrent clients"),
    ):
        for name, pick in lines:
            axis.plot(sizes, [pick(step) for step in result.steps], label=name, **_STYLE)
        _targets(axis, result.targets_p95, "server p95 target")
        axis.set_title(title)
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
        axis.yaxis.set_minor_formatter(FuncFormatter(lambda v, _pos: ""))
        axis.set_xticks(sizes, [f"{s:,}" for s in sizes])
        axis.set_xlabel("memories of the measured agent")
        axis.set_ylabel("ms")
        axis.grid(alpha=0.3, which="both")
        axis.legend(fontsize=8)
    labels = [f"{s:,}" for s in sizes]
    right.bar(labels, [step.builds_per_second_c16 for step in result.steps], color="tab:blue")
    right.axhline(
        result.target_builds_per_second, color="crimson", linestyle="--", label="target (issue 4)"
    )
    right.set_title("Builds per second over HTTP, 16 clients")
    right.set_xlabel("memories of the measured agent")
    right.set_ylabel("builds / s")
    right.grid(axis="y", alpha=0.3)
    right.legend(fontsize=8)
    _finish(fig, result.run, path)
    return path


def conversation_chart(result: "ConversationResult", path: Path) -> Path:
    """Tokens per build and latency by session length (bounded), recall by window (recall)."""
    fig = Figure(figsize=(16, 5), dpi=110)
    tokens, latency, recall = fig.subplots(1, 3)
    if result.bounded is not None:
        _session_tokens(tokens, result.bounded)
        _session_latency(latency, result.bounded, result.targets.get("latency_ratio", 1.5))
    if result.recall is not None:
        _history_recall(recall, result.recall)
    _finish(fig, result.run, path)
    return path


def _session_tokens(axis: Axes, bounded: "BoundedResult") -> None:
    series = bounded.series
    totals = [c + h for c, h in zip(series.context, series.history, strict=True)]
    axis.plot(series.messages, totals, label="context + history", color="black", linewidth=1)
    axis.plot(series.messages, series.history, label="history", linewidth=0.8)
    axis.plot(series.messages, series.context, label="context (memories, recalled)", linewidth=0.8)
    axis.axhline(bounded.available, color="crimson", linestyle="--", label="available")
    axis.set_ylim(0, bounded.available * 1.1)
    axis.set_xlabel("messages in the session")
    axis.set_ylabel("tokens")
    axis.set_title(f"Tokens per build, window {bounded.window.get('total')}")
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8, loc="lower right")


def _session_latency(axis: Axes, bounded: "BoundedResult", target_ratio: float) -> None:
    series = bounded.series
    axis.scatter(
        series.messages, series.server_ms, s=2, alpha=0.2, color="grey", label="server, each build"
    )
    ends = [b.messages for b in bounded.buckets]
    lines: list[tuple[str, Callable[[LengthBucket], float]]] = [
        ("server p50", lambda b: b.server_ms.p50),
        ("server p95", lambda b: b.server_ms.p95),
        ("client p50", lambda b: b.client_ms.p50),
        ("client p95", lambda b: b.client_ms.p95),
    ]
    for name, pick in lines:
        axis.plot(ends, [pick(b) for b in bounded.buckets], label=name, linewidth=1.6, marker="o")
    ceiling = bounded.buckets[0].server_ms.p50 * target_ratio
    axis.axhline(
        ceiling, color="crimson", linestyle="--", label=f"{target_ratio} x server p50 at {ends[0]}"
    )
    axis.set_ylim(0, max(b.client_ms.p95 for b in bounded.buckets) * 1.3 or 1)
    axis.set_xlabel("messages in the session")
    axis.set_ylabel("ms")
    axis.set_title("Build latency by session length")
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8)


def _history_recall(axis: Axes, recall: "RecallResult") -> None:
    windows = sorted(recall.service)
    for name, summaries, width in (
        ("service (kept, recalled, summaries)", recall.service, 2.6),
        ("fresh tail + newest first", recall.rule, 1.6),
        ("the same, no sinks", recall.rule_without_sinks, 1.0),
    ):
        axis.plot(
            windows, [summaries[w].recall for w in windows], label=name, linewidth=width, marker="o"
        )
    _recall_axis(axis, windows, "window (tokens)", "LoCoMo evidence recall from the history")


def _recall_axis(axis: Axes, budgets: list[int], xlabel: str, title: str) -> None:
    """Budgets on a log scale, recall from 0 to 1."""
    axis.set_xscale("log", base=2)
    axis.set_xticks(budgets, [str(b) for b in budgets])
    axis.set_ylim(0, 1)
    axis.set_xlabel(xlabel)
    axis.set_ylabel("mean evidence recall")
    axis.set_title(title)
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8, loc="lower right")


def _targets(axis: Axes, targets: Mapping[int, float], label: str) -> None:
    points = sorted(targets.items())
    axis.scatter(
        [s for s, _ in points],
        [t for _, t in points],
        marker="*",
        s=140,
        color="crimson",
        label=label,
        zorder=5,
    )


def _finish(fig: Figure, run: Mapping[str, object], path: Path) -> None:
    fig.suptitle(
        f"{run.get('date')} · commit {run.get('commit')} · {run.get('cores')} cores, "
        f"{run.get('memory_gib')} GiB",
        fontsize=9,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
