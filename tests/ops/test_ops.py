"""Health, readiness and Prometheus metrics."""

import httpx
from prometheus_client.parser import text_string_to_metric_families

from app.core.worker import Worker
from tests.factories import Tenancy, fact, put_agent, write


async def test_readiness_reports_database_and_migrations(client: httpx.AsyncClient) -> None:
    response = await client.get("/readyz")
    assert response.json() == {"status": "ready", "database": "reachable", "migrations": "at_head"}


async def test_metrics_show_requests_queue_and_memories(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    memory = await write(client, tenancy, fact())
    await client.get(f"/memories/{memory['id']}", headers=tenancy.headers)
    text = (await client.get("/metrics")).text
    assert 'ce_http_requests_total{method="GET",route="/memories/{memory_id}",status="200"}' in text
    assert memory["id"] not in text  # labels are route templates, never ids
    assert 'ce_job_queue_depth{state="queued",task="embed"}' in text
    assert (
        _value(text, "ce_job_queue_lag_seconds", task="embed") > 0
    )  # the memory's embedding waits
    assert 'ce_memories{kind="fact",state="new"}' in text
    assert 'ce_memories_written_total{kind="fact"}' in text
    assert "_created{" not in text
    await worker.drain()
    text = (await client.get("/metrics")).text
    assert 'ce_jobs_processed_total{outcome="done",task="embed"}' in text
    assert _value(text, "ce_job_queue_lag_seconds", task="embed") == 0


def _value(text: str, name: str, **labels: str) -> float:
    """The value of one series on a /metrics page."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return sample.value
    raise AssertionError(f"no {name}{labels} on /metrics")
