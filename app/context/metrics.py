"""Recording a build, a refresh and feedback in the Prometheus metrics of core.metrics."""

from collections import Counter

from app.context.schemas import ContextBuildResponse
from app.context.text.manifest import Assembly
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


def observe_build(response: ContextBuildResponse, assembly: Assembly, *, first: bool) -> None:
    """Latency per stage, relevance, utilization, the context's share of a request with history,
    items by kind and detail, what was left out."""
    for stage, milliseconds in response.timings_ms.items():
        CONTEXT_BUILD_SECONDS.labels(stage).observe(milliseconds / 1000)
    if first:
        CONTEXT_COLD_START.set(response.timings_ms["total"] / 1000)
    if response.relevance is not None:
        CONTEXT_RELEVANCE.observe(response.relevance)
    CONTEXT_UTILIZATION.observe(response.totals.utilization)
    if response.history is not None:
        window = response.history.window
        context = window.available - window.history_budget  # the tokens of `context`
        if whole := context + response.history.tokens:
            CONTEXT_OVERHEAD.observe(context / whole)
    items = Counter((item.kind, item.detail) for layer in response.layers for item in layer.items)
    for (kind, detail), count in items.items():
        CONTEXT_ITEMS.labels(kind, detail).inc(count)
    for reason, count in Counter(excluded.reason for excluded in assembly.excluded).items():
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
