"""The window of a build with a session (seed 001's TokenBudget): the request's fields over the
settings' defaults, what the reserves leave (available), and the shares of it of the memory
layers and of Past Learnings. Pure; the history takes what the context leaves of available."""

import math

from app.context.budget import BudgetPlan
from app.context.history_schemas import ContextWindow
from app.core.config import WindowSettings, window_error
from app.core.errors import InvalidInput


def available(window: WindowSettings) -> int:
    """What the reserves leave for the context and the history together."""
    return window.total - window.system_reserve - window.tools_reserve


def memory_share(window: WindowSettings) -> int:
    """The memory layers' tokens: their fraction of available, rounded down."""
    room = available(window)
    return min(math.floor(window.memory_fraction * room), room)


def learnings_share(window: WindowSettings, memory_budget: int) -> int:
    """Past Learnings' tokens: their fraction of available, rounded down, within what the
    memory context's budget leaves of available (a request's `budget` may take more than the
    memory fraction)."""
    room = available(window)
    return max(min(math.floor(window.learnings_fraction * room), room - memory_budget), 0)


def resolve_window(requested: ContextWindow | None, defaults: WindowSettings) -> WindowSettings:
    """The request's window over the defaults; 422 naming the field when the reserves leave no
    token or the fractions exceed 1 together."""
    values = defaults.model_dump()
    if requested is not None:
        values |= requested.model_dump(exclude_none=True)
    error = window_error(
        values["total"],
        values["system_reserve"],
        values["tools_reserve"],
        values["memory_fraction"],
        values["learnings_fraction"],
    )
    if error is not None:
        field, message = error
        raise InvalidInput(f"window.{field}: {message}", loc=["body", "window", field])
    return WindowSettings.model_validate(values)


def memory_plan(window: WindowSettings, budget: int | None) -> BudgetPlan:
    """The memory context's budget: the request's `budget` when it names one (within
    available), else the window's memory share; filled as far as relevance allows."""
    if budget is not None:
        return BudgetPlan(min(budget, available(window)), "request", 1.0)
    return BudgetPlan(memory_share(window), "window", 1.0)
