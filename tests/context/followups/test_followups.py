"""Refresh, expand and feedback after a build."""

from typing import Any

import httpx

from tests.context.test_build_api import QUESTION, build, included
from tests.factories import Tenancy


async def refresh(client: httpx.AsyncClient, tenancy: Tenancy, **body: Any) -> dict[str, Any]:
    response = await client.post("/context/refresh", headers=tenancy.headers, json=body)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def test_follow_up_on_the_same_topic_keeps_the_context(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    first = await build(client, tenancy, input=QUESTION, budget=2000)
    kept = await refresh(
        client,
        tenancy,
        context_id=first["context_id"],
        input="Should we use Memcached for caching in Newton instead of Redis?",
    )
    assert kept["refreshed"] is False
    assert kept["reasons"] == []
    assert kept["similarity"] >= 0.5
    assert kept["build"] is None
    again = await refresh(client, tenancy, context_id=first["context_id"], input=QUESTION)
    assert (again["refreshed"], again["similarity"]) == (False, 1.0)


async def test_new_topic_rebuilds_with_reasons_and_delta(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    first = await build(client, tenancy, input=QUESTION, budget=2000)
    moved = await refresh(
        client,
        tenancy,
        context_id=first["context_id"],
        input="Does Tim prefer Celsius or Fahrenheit for the weather?",
    )
    assert moved["refreshed"] is True
    assert "topic_drift" in moved["reasons"]
    assert moved["similarity"] < 0.5
    rebuilt = moved["build"]
    assert rebuilt["parent_id"] == first["context_id"]
    assert newton["Tim prefers Celsius, not Fahrenheit."] in moved["delta"]["added"]
    assert set(moved["delta"]["removed"]) == included(first) - included(rebuilt)
    stored = await client.get(f"/context/{rebuilt['context_id']}", headers=tenancy.headers)
    assert stored.json()["context"] == rebuilt["context"]


async def test_frame_switch_decision_point_and_token_pressure(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    first = await build(client, tenancy, input=QUESTION, budget=2000)
    debug = await refresh(
        client,
        tenancy,
        context_id=first["context_id"],
        input="Redis cache errors: ConnectionError traceback in the worker",
    )
    assert "frame_switch" in debug["reasons"]
    assert debug["frame"] == "debug"
    acting = await refresh(
        client,
        tenancy,
        context_id=first["context_id"],
        input="Should we use Redis for caching in Newton?",
        decision_point=True,
    )
    assert acting["reasons"] == ["decision_point"]
    pressed = await refresh(
        client,
        tenancy,
        context_id=first["context_id"],
        input=QUESTION,
        budget=first["totals"]["used"] - 100,
    )
    assert pressed["reasons"] == ["token_pressure"]
    assert pressed["build"]["totals"]["used"] <= first["totals"]["used"] - 100


async def test_refresh_of_unknown_context_is_404(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    first = await build(client, tenancy, input=QUESTION)
    response = await client.post(
        "/context/refresh",
        headers=other_tenancy.headers,
        json={"context_id": first["context_id"], "input": "x"},
    )
    assert response.status_code == 404


async def test_expand_returns_the_full_record_and_counts_a_reference(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    first = await build(client, tenancy, input=QUESTION, budget=2000)
    memory_id = next(iter(included(first)))
    expanded = await client.post(
        "/context/expand",
        headers=tenancy.headers,
        json={"memory_id": memory_id, "context_id": first["context_id"]},
    )
    assert expanded.status_code == 200
    record = expanded.json()
    assert record["id"] == memory_id
    assert record["representations"]["full"]["tokens"] > 0
    assert record["reference_count"] == 1
    again = await client.get(f"/memories/{memory_id}", headers=tenancy.headers)
    assert again.json()["reference_count"] == 1
    assert again.json()["last_referenced_at"] is not None


async def test_feedback_with_ids_counts_usage_and_precision(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    first = await build(client, tenancy, input=QUESTION, budget=2000)
    # Every memory the context holds counts, its constraints among them.
    chosen = sorted(i["memory_id"] for layer in first["layers"] for i in layer["items"])
    assert len(chosen) > len(included(first))
    response = await client.post(
        f"/context/{first['context_id']}/feedback",
        headers=tenancy.headers,
        json={"used_memory_ids": chosen[:2]},
    )
    assert response.status_code == 200
    result = response.json()
    assert result["precision"] == round(2 / len(chosen), 4)
    memory = await client.get(f"/memories/{chosen[0]}", headers=tenancy.headers)
    assert memory.json()["reference_count"] == 1
    twice = await client.post(
        f"/context/{first['context_id']}/feedback",
        headers=tenancy.headers,
        json={"used_memory_ids": chosen[:1]},
    )
    assert twice.status_code == 409


async def test_feedback_from_the_reply_finds_what_it_used(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    first = await build(client, tenancy, input=QUESTION, budget=2000)
    reply = (
        "No: last time we chose Postgres UNLOGGED tables over Redis for the session cache, "
        "and Redis would add a separate service to manage, monitor and back up."
    )
    response = await client.post(
        f"/context/{first['context_id']}/feedback", headers=tenancy.headers, json={"reply": reply}
    )
    referenced = set(response.json()["referenced"])
    assert newton["Chose Postgres UNLOGGED tables over Redis for the session cache"] in referenced
    assert newton["Redis adds a separate service to manage, monitor, and back up."] in referenced
    assert len(referenced) < len(included(first))


async def test_bad_feedback_is_rejected(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    first = await build(client, tenancy, input=QUESTION, budget=2000)
    url = f"/context/{first['context_id']}/feedback"
    not_in_context = newton["Tim prefers Celsius, not Fahrenheit."]
    outside = await client.post(
        url, headers=tenancy.headers, json={"used_memory_ids": [not_in_context]}
    )
    assert outside.status_code == 409  # the context's memories are stored, not in the request
    assert outside.json()["memory_id"] == not_in_context
    for body in ({}, {"used_memory_ids": [], "reply": "Yes."}, {"used_memory_ids": None}):
        malformed = await client.post(url, headers=tenancy.headers, json=body)
        assert malformed.status_code == 422, body
    fine = await client.post(url, headers=tenancy.headers, json={"used_memory_ids": []})
    assert fine.json()["precision"] == 0.0


async def test_metrics_show_context_series(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    first = await build(client, tenancy, input=QUESTION, budget=2000)
    await refresh(client, tenancy, context_id=first["context_id"], input="Celsius or Fahrenheit?")
    await client.post(
        f"/context/{first['context_id']}/feedback",
        headers=tenancy.headers,
        json={"used_memory_ids": sorted(included(first))[:1]},
    )
    text = (await client.get("/metrics")).text
    for series in (
        'ce_context_build_seconds_bucket{le="0.5",stage="total"}',
        'ce_context_build_seconds_count{stage="search"}',
        "ce_context_relevance_count",
        "ce_context_budget_utilization_count",
        'ce_context_items_total{detail="summary",kind="fact"}',
        'ce_context_left_out_total{reason="score"}',
        "ce_context_refresh_checks_total",
        "ce_context_refresh_rate",
        'ce_context_refreshes_total{reason="',  # each rebuild under its first reason
        "ce_context_recall_precision_count",
        "ce_context_cold_start_seconds",
    ):
        assert series in text, series
