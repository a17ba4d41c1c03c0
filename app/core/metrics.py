"""Prometheus metrics of the service; labels stay low-cardinality (no agent or memory ids)."""

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
MEMORIES_WRITTEN = Counter("ce_memories_written_total", "Memories written, by kind.", ["kind"])
MEMORIES_STORED = Gauge(
    "ce_memories", "Memories stored, by kind and state (read at scrape time).", ["kind", "state"]
)
JOBS_PROCESSED = Counter(
    "ce_jobs_processed_total",
    "Background jobs finished, by task and outcome.",
    ["task", "outcome"],
)
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
)
