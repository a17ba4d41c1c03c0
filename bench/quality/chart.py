"""The quality benchmark's chart (PNG, a matplotlib Figure: no display and no pyplot state)."""

from pathlib import Path

from matplotlib.figure import Figure

from bench.common.charts import STYLE, finish, recall_axis, targets
from bench.common.recall import BUDGETS
from bench.quality.tables import QualityResult


def quality_chart(result: QualityResult, path: Path) -> Path:
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
        left.plot(budgets, [summary[b].recall for b in budgets], label=method, **STYLE)
    targets(left, result.targets, "target (issue 4)")
    recall_axis(left, budgets, "token budget (o200k_base)", "LoCoMo evidence recall by budget")

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
    finish(fig, result.run, path)
    return path
