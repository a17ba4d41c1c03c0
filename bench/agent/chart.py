"""The agent benchmark's chart (PNG, a matplotlib Figure: no display and no pyplot state)."""

import math
from pathlib import Path

from matplotlib.figure import Figure

from bench.agent.tables import AgentResult
from bench.common.charts import STYLE, finish


def agent_chart(result: AgentResult, path: Path) -> Path:
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
        left.plot(budgets, values, label=name, **STYLE)
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
    finish(fig, result.run, path)
    return path
