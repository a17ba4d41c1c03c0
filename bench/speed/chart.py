"""The speed benchmark's chart (PNG, a matplotlib Figure: no display and no pyplot state)."""

import math
from collections.abc import Callable
from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from bench.common.charts import STYLE, finish, targets
from bench.speed.results import SizeStep, SpeedResult


def speed_chart(result: SpeedResult, path: Path) -> Path:
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
            axis.plot(sizes, [pick(step) for step in result.steps], label=name, **STYLE)
        targets(axis, result.targets_p95, "server p95 target")
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
    finish(fig, result.run, path)
    return path
