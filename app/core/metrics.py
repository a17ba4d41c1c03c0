"""Prometheus metrics of the service; labels stay low-cardinality (no agent or memory ids).

With several API processes (`shared_metrics.py`) counters and histograms add up across them;
a gauge read at scrape time shows the latest value set, a process's own state the largest
among the live processes.
"""

from typing import Final

from prometheus_client import Counter, Gauge, Histogram

HTTP_REQUESTS = Counter(
    "ce_http_requests_total",
    "HTTP requests by route template, method and status.",
    ["route", "method", "status"],
)
HTTP_LATENCY = Histogram(
    "ce_http_request_duration_seconds",
    "HTTP request latency by route template.",
    ["route", "method"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
# How a gauge's values in several processes combine: the latest set, or the largest among the
# processes that run.
LATEST: Final = "mostrecent"
LARGEST: Final = "livemax"
DATABASE_UP = Gauge(
    "ce_database_up",
    "1 when the database answered the last scrape's queries, else 0.",
    multiprocess_mode=LATEST,
)
MEMORIES_WRITTEN = Counter("ce_memories_written_total", "Memories written, by kind.", ["kind"])
FACTS_CONFIRMED = Counter(
    "ce_fact_confirmations_total",
    "Facts confirmed: by a written fact that repeated them (`repeated`) or by the confirm "
    "action (`action`).",
    ["via"],
)
RETENTION_CHANGES = Counter(
    "ce_retention_changes_total",
    "Changes retention runs made to memories, by rule (`episode_archived`, `forgotten` ...).",
    ["rule"],
)
FACT_CONFIRMATION_RATE = Gauge(
    "ce_fact_confirmation_rate",
    "Of the facts written since start, the share that confirmed an active fact instead of "
    "being stored anew (with several API processes, in the one that wrote a fact last).",
    multiprocess_mode=LATEST,
)


_FACT_WRITES = {"created": 0, "repeated": 0}


def observe_fact_writes(created: int, repeated: int) -> None:
    """Count facts written, stored anew or confirming an active one, and update the rate."""
    _FACT_WRITES["created"] += created
    _FACT_WRITES["repeated"] += repeated
    FACTS_CONFIRMED.labels("repeated").inc(repeated)
    if total := _FACT_WRITES["created"] + _FACT_WRITES["repeated"]:
        FACT_CONFIRMATION_RATE.set(_FACT_WRITES["repeated"] / total)


MEMORIES_STORED = Gauge(
    "ce_memories",
    "Memories stored, by kind and state (read at scrape time).",
    ["kind", "state"],
    multiprocess_mode=LATEST,
)
JOBS_PROCESSED = Counter(
    "ce_jobs_processed_total",
    "Background jobs finished, by task and outcome.",
    ["task", "outcome"],
)
JOB_OUTCOMES = ("done", "retried", "failed")
JOB_DURATION = Histogram(
    "ce_job_duration_seconds",
    "Time to run one batch of background jobs, by task.",
    ["task"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
JOB_QUEUE_DEPTH = Gauge(
    "ce_job_queue_depth",
    "Background jobs not done, by task and state (read at scrape time).",
    ["task", "state"],
    multiprocess_mode=LATEST,
)
JOB_QUEUE_LAG = Gauge(
    "ce_job_queue_lag_seconds",
    "How long the longest-waiting background job due to run has waited, by task; 0 when none "
    "waits (read at scrape time).",
    ["task"],
    multiprocess_mode=LATEST,
)
PROVIDER_CIRCUIT_OPEN = Gauge(
    "ce_provider_circuit_open",
    "1 while calls to a provider are paused after failures in a row (in any API process), else 0.",
    ["provider"],
    multiprocess_mode=LARGEST,
)

CONTEXT_BUILD_SECONDS = Histogram(
    "ce_context_build_seconds",
    "Context build latency, in total and per stage.",
    ["stage"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.015, 0.025, 0.04, 0.06, 0.1, 0.25, 0.5, 1, 2.5),
)
CONTEXT_RELEVANCE = Histogram(
    "ce_context_relevance",
    "Mean similarity of the memories loaded into a context to its input.",
    buckets=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
)
CONTEXT_UTILIZATION = Histogram(
    "ce_context_budget_utilization",
    "Share of the token budget a built context uses.",
    buckets=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0),
)
CONTEXT_OVERHEAD = Histogram(
    "ce_context_overhead",
    "Share of a build with a session that is the context (memories) rather than the history: "
    "context tokens / (context + history tokens); design target < 0.15.",
    buckets=(0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0),
)
CONTEXT_ITEMS = Counter(
    "ce_context_items_total",
    "Memories included in contexts, by kind and detail level.",
    ["kind", "detail"],
)
CONTEXT_LEFT_OUT = Counter(
    "ce_context_left_out_total", "Candidates left out of contexts, by reason.", ["reason"]
)
CONTEXT_REFRESH_CHECKS = Counter(
    "ce_context_refresh_checks_total", "Refresh requests (conversation turns checked)."
)
CONTEXT_REFRESHES = Counter(
    "ce_context_refreshes_total",
    "Contexts rebuilt on refresh, each under its first reason (they add up to the rebuilds).",
    ["reason"],
)
CONTEXT_REFRESH_RATE = Gauge(
    "ce_context_refresh_rate",
    "Rebuilds per refresh request (conversation turn checked) since start; target < 0.3 (with "
    "several API processes, in the one that checked a turn last).",
    multiprocess_mode=LATEST,
)
CONTEXT_RECALL_PRECISION = Histogram(
    "ce_context_recall_precision",
    "Share of loaded memories the LLM referenced (from feedback).",
    buckets=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
)
CONTEXT_COLD_START = Gauge(
    "ce_context_cold_start_seconds",
    "Duration of the first context build served by a process (the slowest of the API "
    "processes that run).",
    multiprocess_mode=LARGEST,
)
TOOL_CALLS = Counter(
    "ce_tool_calls_total",
    "Tool calls of LLMs (POST /agents/{agent_id}/tools/{name}), by tool and outcome (ok, "
    "invalid, not_found, error); an unknown tool's name is counted as `unknown`.",
    ["tool", "outcome"],
)
TOOL_CALL_SECONDS = Histogram(
    "ce_tool_call_seconds",
    "Tool call latency, by tool.",
    ["tool"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
