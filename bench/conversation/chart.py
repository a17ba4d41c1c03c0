"""The conversation benchmark's chart (PNG, a matplotlib Figure: no display and no pyplot state)."""

from collections.abc import Callable
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from bench.common.charts import finish, recall_axis
from bench.conversation.results import BoundedResult, ConversationResult, LengthBucket, RecallResult


def conversation_chart(result: ConversationResult, path: Path) -> Path:
    """Tokens per build and latency by session length (bounded), recall by window (recall)."""
    fig = Figure(figsize=(16, 5), dpi=110)
    tokens, latency, recall = fig.subplots(1, 3)
    if result.bounded is not None:
        _session_tokens(tokens, result.bounded)
        _session_latency(latency, result.bounded, result.targets.get("latency_ratio", 1.5))
    if result.recall is not None:
        _history_recall(recall, result.recall)
    finish(fig, result.run, path)
    return path


def _session_tokens(axis: Axes, bounded: BoundedResult) -> None:
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


def _session_latency(axis: Axes, bounded: BoundedResult, target_ratio: float) -> None:
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


def _history_recall(axis: Axes, recall: RecallResult) -> None:
    windows = sorted(recall.service)
    for name, summaries, width in (
        ("service (kept, recalled, summaries)", recall.service, 2.6),
        ("fresh tail + newest first", recall.rule, 1.6),
        ("the same, no sinks", recall.rule_without_sinks, 1.0),
    ):
        axis.plot(
            windows, [summaries[w].recall for w in windows], label=name, linewidth=width, marker="o"
        )
    recall_axis(axis, windows, "window (tokens)", "LoCoMo evidence recall from the history")
