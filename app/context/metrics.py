"""Recording a build, a refresh and feedback in the Prometheus metrics of core.metrics."""

from collections import Counter
from collections.abc import Mapping

from app.context.history.window import available
from app.context.text.manifest import Built, utilization
from app.core.metrics import (
    CONTEXT_BUILD_SECONDS,
    CONTEXT_COLD_START,
    CONTEXT_ITEMS,
    CONTEXT_LEFT_OUT,
    CONTEXT_OVERHEAD,
    CONTEXT_RECALL_PRECISION,
    CONTEXT_REFRESH_CHECKS,
    CONTEXT_REFRESH_RATE,
    CONTEXT_REFRESHES,
    CONTEXT_RELEVANCE,
    CONTEXT_UTILIZATION,
)


def observe_build(
    built: Built, timings_ms: Mapping[str, float], relevance: float | None, *, first: bool
) -> None:
    """Latency per stage, relevance, utilization, the context's share of a request with history,
    items by kind and detail, what was left out."""
    for stage, milliseconds in timings_ms.items():
        CONTEXT_BUILD_SECONDS.labels(stage).observe(milliseconds / 1000)
    if first:
        CONTEXT_COLD_START.set(timings_ms["total"] / 1000)
    if relevance is not None:
        CONTEXT_RELEVANCE.observe(relevance)
    CONTEXT_UTILIZATION.observe(utilization(built))
    if built.history is not None:
        context = available(built.history.window) - built.history.budget  # `context`'s tokens
        if whole := context + built.history.tokens:
            CONTEXT_OVERHEAD.observe(context / whole)
    items: Counter[tuple[str, str]] = Counter(
        (item.scored.candidate.kind, item.detail) for item in built.included()
    )
    items["censor", "summary"] += len(built.assembly.shown_censors)
    for (kind, detail), count in items.items():
        if count:
            CONTEXT_ITEMS.labels(kind, detail).inc(count)
    for reason, count in Counter(excluded.reason for excluded in built.assembly.excluded).items():
        CONTEXT_LEFT_OUT.labels(reason).inc(count)


def observe_refresh(reasons: list[str]) -> None:
    """One conversation turn checked; a rebuild counts once, under its first reason, so the
    counts by reason add up to the rebuilds; the rate is rebuilds per turn checked."""
    CONTEXT_REFRESH_CHECKS.inc()
    _REFRESHES["checks"] += 1
    if reasons:
        CONTEXT_REFRESHES.labels(reasons[0]).inc()
        _REFRESHES["rebuilds"] += 1
    CONTEXT_REFRESH_RATE.set(_REFRESHES["rebuilds"] / _REFRESHES["checks"])


_REFRESHES = {"checks": 0, "rebuilds": 0}


def observe_feedback(precision: float) -> None:
    CONTEXT_RECALL_PRECISION.observe(precision)
