"""The budget step: the total, the caps of the fixed layers, the flexible pool and its shares
between kinds, and how many strong hits bring their neighbours. Pure."""

import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from app.context.types import FLEXIBLE_KINDS, FlexibleKind, Neighbours
from app.core.context_config import ContextSettings

# Seed 009: the layers of an 8,000-token context.
REFERENCE_TOTAL = 8000
FIXED_CAPS = {
    "identity": 500,
    "censors": 300,
    "frame": 500,
    "working_memory": 700,
    "calibration": 100,
}
FLEXIBLE_BASE: dict[FlexibleKind, int] = {
    "decision": 2000,
    "fact": 1500,
    "procedure": 1500,
    "episode": 1000,
}
# Filled first to last; the last ones give way first when the budget is small.
FIXED_ORDER = ("identity", "censors", "working_memory", "frame", "calibration")
_SCALED_WITH_BUDGET = ("frame", "calibration")
_WORD = re.compile(r"\w+")


def fixed_cap(layer: str, total: int) -> int:
    """The most a fixed layer may take of `total`; frame and note shrink with small budgets."""
    cap = FIXED_CAPS[layer]
    if layer in _SCALED_WITH_BUDGET:
        cap = round(cap * min(1.0, total / REFERENCE_TOTAL))
    return min(cap, total)


def complexity(text: str) -> float:
    """How much of the flexible budget an input needs, from 0.5 (a short question) to 1.0."""
    words = len(_WORD.findall(text))
    clauses = text.count("?") + text.count(";") + text.count("\n")
    return round(min(1.0, 0.5 + words / 120 + clauses * 0.05), 3)


def flexible_shares(pool: int, priorities: dict[FlexibleKind, float]) -> dict[FlexibleKind, int]:
    """Split the flexible pool by the seed's base sizes weighted by the frame's priorities."""
    weights = {
        kind: FLEXIBLE_BASE[kind] * max(priorities.get(kind, 0.5), 0.0) for kind in FLEXIBLE_KINDS
    }
    total_weight = sum(weights.values()) or 1.0
    return {kind: int(pool * weight / total_weight) for kind, weight in weights.items()}


@dataclass(frozen=True)
class BudgetPlan:
    """The total, where it came from, and how much of the flexible pool this input needs."""

    total: int
    source: Literal["request", "frame", "agent", "window"]
    flexible_scale: float


def plan_budget(
    requested: int | None,
    frame_budget: int | None,
    agent_budget: int | None,
    default: int,
    text: str,
) -> BudgetPlan:
    """Total = request budget, else the frame's, else the agent's; defaults scale with the input.

    A budget the caller names is filled as far as relevance allows; only a default budget is
    trimmed for a short input.
    """
    if requested is not None:
        return BudgetPlan(requested, "request", 1.0)
    if frame_budget is not None:
        return BudgetPlan(frame_budget, "frame", complexity(text))
    return BudgetPlan(agent_budget or default, "agent", complexity(text))


def flexible_pool(total: int, fixed_used: int, scale: float) -> int:
    """What the fixed layers leave for memories, scaled to what the input needs."""
    return max(int((total - fixed_used) * scale), 0)


_TOKENS_PER_HIT = 200  # a bigger budget has room for what happened around more of the hits


def neighbour_hits(settings: ContextSettings, total: int) -> int:
    """How many strong episode hits bring their timeline neighbours, for a budget."""
    if settings.neighbour_hits == 0:
        return 0
    scaled = total // _TOKENS_PER_HIT
    return max(settings.neighbour_hits, min(scaled, settings.neighbour_hits_max))


def neighbours(settings: ContextSettings, total: int) -> Neighbours:
    """The strong episode hits whose timeline neighbours come along, for a budget: how many,
    how many on each side, and how far from the hit in time."""
    return Neighbours(
        neighbour_hits(settings, total),
        settings.neighbour_window,
        timedelta(minutes=settings.neighbour_gap_minutes),
    )
