"""The build's answer as stored and sent (encoded once), and the compact manifest."""

from typing import Any

import httpx

from app.context.storing import with_timings
from tests.context.test_build_api import QUESTION, build
from tests.factories import Tenancy


def _without_timings(document: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in document.items() if key != "timings_ms"}


async def test_the_stored_build_is_the_answer_and_the_answer_has_the_stores_time(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    answer = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": "newton", "input": QUESTION, "budget": 4000},
    )
    result = answer.json()
    read = await client.get(f"/context/{result['context_id']}", headers=tenancy.headers)
    stored = read.json()
    assert _without_timings(stored) == _without_timings(result)
    # The same bytes: encoded once, sent back as stored (but for the stages' times).
    assert with_timings(read.text, {}) == with_timings(answer.text, {})
    # The stored build was written before its storing took time; the answer after.
    assert "store" not in stored["timings_ms"]
    assert result["timings_ms"]["store"] >= 0
    assert result["timings_ms"]["total"] >= stored["timings_ms"]["total"]
    stages = {k: v for k, v in result["timings_ms"].items() if k not in ("store", "total")}
    assert stages == {k: v for k, v in stored["timings_ms"].items() if k != "total"}


async def test_a_compact_manifest_has_the_same_context_without_the_score_details(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    body = {"input": QUESTION, "budget": 4000, "now": "2026-10-02T00:00:00Z"}
    full = await build(client, tenancy, **body)
    compact = await build(client, tenancy, **body, manifest="compact")
    assert compact["manifest"] == "compact"
    assert full["manifest"] == "full"
    assert compact["context"] == full["context"]
    assert compact["totals"] == full["totals"]

    def items(result: dict[str, Any]) -> list[tuple[str, str, int, float]]:
        return [
            (i["memory_id"], i["detail"], i["tokens"], i["score"])
            for layer in result["layers"]
            for i in layer["items"]
        ]

    assert items(compact) == items(full)
    assert items(full)
    assert all(i["components"] is None for layer in compact["layers"] for i in layer["items"])
    assert all(i["components"] for layer in full["layers"] for i in layer["items"])
    # Left out: counted in both, listed in the full manifest only.
    assert compact["left_out"] == []
    assert full["left_out"]
    assert compact["left_out_counts"] == full["left_out_counts"]
    listed = dict.fromkeys(("budget", "score", "duplicate"), 0)
    for out in full["left_out"]:
        listed[out["reason"]] += 1
    assert all(full["left_out_counts"][r] >= n for r, n in listed.items())
    assert sum(full["left_out_counts"].values()) == len(full["left_out"])  # all shown here


async def test_an_unknown_manifest_detail_is_422_naming_the_field(
    client: httpx.AsyncClient, tenancy: Tenancy, newton: dict[str, Any]
) -> None:
    response = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": "newton", "input": QUESTION, "manifest": "terse"},
    )
    assert response.status_code == 422
    assert "manifest" in response.text
