"""What the benchmarks' charts share (each benchmark draws its own in its `chart.py`): the line
style, the recall axis, the targets as stars, and the title line with the run and the machine."""

from collections.abc import Mapping
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure

STYLE = {"linewidth": 1.6, "marker": "o", "markersize": 4}


def recall_axis(axis: Axes, budgets: list[int], xlabel: str, title: str) -> None:
    """Budgets on a log scale, recall from 0 to 1."""
    axis.set_xscale("log", base=2)
    axis.set_xticks(budgets, [str(b) for b in budgets])
    axis.set_ylim(0, 1)
    axis.set_xlabel(xlabel)
    axis.set_ylabel("mean evidence recall")
    axis.set_title(title)
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8, loc="lower right")


def targets(axis: Axes, targets: Mapping[int, float], label: str) -> None:
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


def finish(fig: Figure, run: Mapping[str, object], path: Path) -> None:
    fig.suptitle(
        f"{run.get('date')} · commit {run.get('commit')} · {run.get('cores')} cores, "
        f"{run.get('memory_gib')} GiB",
        fontsize=9,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
