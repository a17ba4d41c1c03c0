"""The window of a build with a session (seed 001's TokenBudget): the request's fields over the
agent's defaults over the settings', what the reserves leave (available), and the shares of it
of the memory layers and of Past Learnings. Pure; the history takes what the context leaves of
available."""

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from app.agents.schemas import ContextWindow
from app.context.schemas import ContextBuildRequest
from app.context.selection.budget import BudgetPlan
from app.core.context_config import WindowSettings, window_error
from app.core.errors import Conflict, InvalidInput


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


# Where a field of a build's window came from.
Source = Literal["request", "agent", "settings"]
# The fields each rule of `window_error` reads, by the field it names.
_RULE_FIELDS = {
    "total": ("total", "system_reserve", "tools_reserve"),
    "learnings_fraction": ("memory_fraction", "learnings_fraction"),
}


@dataclass(frozen=True)
class AgentWindow:
    """An agent's name and its window defaults, as stored (any of the window's fields)."""

    name: str
    defaults: Mapping[str, object] | None


def resolve_window(
    request: ContextBuildRequest, agent: AgentWindow, defaults: WindowSettings
) -> WindowSettings | None:
    """The window of a build with a session (None without one): each field from the request's
    window, else the agent's defaults, else the settings. When the reserves leave no token or
    the fractions exceed 1 together: 422 naming the request's field when the request's window
    and the settings alone are at fault; 409 when a field the rule reads comes from the
    agent's defaults (the request is well formed; the agent's stored defaults conflict with it
    or with the settings), saying which and what to do."""
    if request.session_id is None:
        return None
    values = defaults.model_dump()
    sources: dict[str, Source] = dict.fromkeys(values, "settings")
    stored = ContextWindow.model_validate(agent.defaults or {})
    given: tuple[tuple[Source, ContextWindow | None], ...] = (
        ("agent", stored),
        ("request", request.window),
    )
    for source, window in given:
        fields = window.model_dump(exclude_none=True) if window is not None else {}
        values |= fields
        sources |= dict.fromkeys(fields, source)
    error = window_error(
        values["total"],
        values["system_reserve"],
        values["tools_reserve"],
        values["memory_fraction"],
        values["learnings_fraction"],
    )
    if error is None:
        return WindowSettings.model_validate(values)
    field, message = error
    read = _RULE_FIELDS[field]
    from_agent = [f for f in read if sources[f] == "agent"]
    if not from_agent:
        raise InvalidInput(f"window.{field}: {message}", loc=["body", "window", field])
    labels = {
        "agent": f"the default_window of agent '{agent.name}'",
        "request": "the request",
        "settings": "the settings",
    }
    origins = "; ".join(
        f"{', '.join(f for f in read if sources[f] == source)} from {label}"
        for source, label in labels.items()
        if any(sources[f] == source for f in read)
    )
    raise Conflict(
        f"window.{field}: {message} ({origins}). Give "
        f"{' and '.join(f'window.{f}' for f in from_agent)} in the request's window, or PUT "
        f"/agents/{agent.name} with a default_window that leaves room.",
        errors=[{"loc": ["agent", "default_window", f], "msg": message} for f in from_agent],
    )


def memory_plan(window: WindowSettings, budget: int | None) -> BudgetPlan:
    """The memory context's budget: the request's `budget` when it names one (within
    available), else the window's memory share; filled as far as relevance allows."""
    if budget is not None:
        return BudgetPlan(min(budget, available(window)), "request", 1.0)
    return BudgetPlan(memory_share(window), "window", 1.0)
