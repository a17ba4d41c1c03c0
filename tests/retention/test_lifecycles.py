"""Retention ages memories by time and use, as of a given `now`, and says why."""

import uuid
from datetime import timedelta
from typing import Any

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession, async_sessionmaker

from app.memories.cold_repository import ColdStorage
from app.memories.models import Memory
from tests.factories import Tenancy, fact, procedure, put_agent
from tests.retention.writes import NOW, censor, days_before, episode, run, states, write_all


async def test_episodes_age_into_summarized_and_archived(
    client: httpx.AsyncClient, tenancy: Tenancy, connection: AsyncConnection
) -> None:
    await put_agent(client, tenancy)
    ids = await write_all(
        client,
        tenancy,
        {
            "fresh": episode("Deploy review", 5),
            "month": episode("Vacuum incident", 40),
            "quarter": episode("Replica outage", 100),
            "year": episode("Disk swap", 400),
        },
    )
    result = await run(client, tenancy, now=NOW.isoformat())
    assert result["now"].startswith("2027-03-01T12:00:00")
    assert result["dry_run"] is False
    by_memory = {change["memory_id"]: change for change in result["changes"]}
    assert set(by_memory) == {ids["month"], ids["quarter"], ids["year"]}
    month = by_memory[ids["month"]]
    assert (month["rule"], month["from_state"], month["to_state"]) == (
        "episode_summarized",
        "active",
        "summarized",
    )
    assert "40 days before 2027-03-01" in month["reason"]
    assert month["details"] == {"age_days": 40.0, "after_days": 30.0}
    assert by_memory[ids["year"]]["rule"] == "episode_archived"
    assert await states(client, tenancy, ids) == {
        "fresh": "active",
        "month": "summarized",
        "quarter": "archived",
        "year": "archived",
    }
    # The searched record keeps the summary; the detail is in cold storage.
    hot = await connection.scalar(
        text("SELECT full_text FROM memory WHERE id = :id"), {"id": ids["month"]}
    )
    assert "paged the storage team" not in hot
    assert "nightly vacuum slowed the primary" in hot


async def test_trimmed_episode_still_expands_to_its_full_text(
    client: httpx.AsyncClient, tenancy: Tenancy, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    await put_agent(client, tenancy)
    ids = await write_all(client, tenancy, {"old": episode("Vacuum incident", 40)})
    before = (await client.get(f"/memories/{ids['old']}", headers=tenancy.headers)).json()
    await run(client, tenancy, now=NOW.isoformat())
    expanded = await client.post(
        "/context/expand", json={"memory_id": ids["old"]}, headers=tenancy.headers
    )
    assert expanded.status_code == 200, expanded.text
    after = expanded.json()
    assert after["state"] == "summarized"
    assert after["representations"]["full"] == before["representations"]["full"]
    assert "paged the storage team at 03:10" in after["representations"]["full"]["text"]
    assert after["fields"]["detail"] == before["fields"]["detail"]
    assert after["representations"]["summary"] == before["representations"]["summary"]
    # The model's expand_memory tool reads the whole record too.
    tool = await client.post(
        "/agents/newton/tools/expand_memory",
        json={"arguments": {"memory_id": ids["old"]}},
        headers=tenancy.headers,
    )
    assert tool.status_code == 200, tool.text
    assert "paged the storage team at 03:10" in tool.json()["content"]
    # Archived two months later, it still expands to the original, not to the trimmed record.
    later = await run(client, tenancy, now=(NOW + timedelta(days=60)).isoformat())
    assert [c["to_state"] for c in later["changes"]] == ["archived"]
    archived = (await client.get(f"/memories/{ids['old']}", headers=tenancy.headers)).json()
    assert archived["state"] == "archived"
    assert archived["representations"]["full"] == before["representations"]["full"]
    async with sessionmaker() as session:
        memory = await session.get(Memory, uuid.UUID(ids["old"]))
        assert memory is not None
        whole = await ColdStorage(session).full_text(memory)
    assert whole == before["representations"]["full"]["text"]
    # Erasing it takes its cold record too.
    erased = await client.delete(f"/memories/{ids['old']}", headers=tenancy.headers)
    assert erased.status_code == 204


async def test_running_twice_changes_nothing_the_second_time(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    ids = await write_all(
        client,
        tenancy,
        {
            "month": episode("Vacuum incident", 40),
            "year": episode("Disk swap", 400),
            "stale": fact("The staging VPN uses port 1194.", occurred_at=days_before(400)),
        },
    )
    first = await run(client, tenancy, now=NOW.isoformat())
    assert len(first["changes"]) == 3
    after_first = await states(client, tenancy, ids)
    second = await run(client, tenancy, now=NOW.isoformat())
    assert second["changes"] == []
    assert await states(client, tenancy, ids) == after_first
    listed = await client.get("/agents/newton/retention/changes", headers=tenancy.headers)
    assert len(listed.json()["items"]) == 3


async def test_dry_run_says_what_would_change_and_changes_nothing(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    ids = await write_all(client, tenancy, {"year": episode("Disk swap", 400)})
    dry = await run(client, tenancy, now=NOW.isoformat(), dry_run=True)
    assert dry["dry_run"] is True
    assert [(c["memory_id"], c["to_state"]) for c in dry["changes"]] == [(ids["year"], "archived")]
    assert await states(client, tenancy, ids) == {"year": "active"}
    real = await run(client, tenancy, now=NOW.isoformat())
    assert real["changes"] == dry["changes"]


async def activate(
    client: httpx.AsyncClient, tenancy: Tenancy, memory_id: str, **body: Any
) -> None:
    response = await client.patch(
        f"/memories/{memory_id}",
        json={"action": "record_activation", **body},
        headers=tenancy.headers,
    )
    assert response.status_code == 200, response.text


async def test_procedures_and_censors_retire_by_their_counters(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    ids = await write_all(
        client,
        tenancy,
        {
            "failing": procedure("Hot patch", "Patch the running binary."),
            "working": procedure("Blue green deploy", "Switch traffic after checks."),
            "unused": {
                **procedure("Tape restore", "Restore from tape."),
                "occurred_at": days_before(200),
            },
            "idle_warn": censor("rm -rf", 400),
            "idle_block": censor("DROP DATABASE", 400, action="block"),
            "triggered": censor("force push", 400),
        },
    )
    for success in (True, False, False, True, False, False):
        await activate(client, tenancy, ids["failing"], success=success)
    for success in (True, True, True, False, True):
        await activate(client, tenancy, ids["working"], success=success)
    await activate(client, tenancy, ids["triggered"])
    result = await run(client, tenancy, now=NOW.isoformat())
    rules = {change["memory_id"]: change for change in result["changes"]}
    assert {name: rules[i]["rule"] for name, i in ids.items() if i in rules} == {
        "failing": "procedure_failing",
        "unused": "procedure_unused",
        "idle_warn": "censor_idle",
    }
    assert rules[ids["failing"]]["details"]["failures"] == 4
    assert "failed 4 of its 6 activations" in rules[ids["failing"]]["reason"]
    assert await states(client, tenancy, ids) == {
        "failing": "retired",
        "working": "effective",
        "unused": "retired",
        "idle_warn": "retired",
        "idle_block": "created",
        "triggered": "active",
    }


async def test_another_tenants_agent_is_not_found(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    ids = await write_all(client, tenancy, {"year": episode("Disk swap", 400)})
    hidden = await client.post(
        "/agents/newton/retention/run", json={}, headers=other_tenancy.headers
    )
    assert hidden.status_code == 404
    assert hidden.headers["content-type"] == "application/problem+json"
    changes = await client.get("/agents/newton/retention/changes", headers=other_tenancy.headers)
    assert changes.status_code == 404
    restore = await client.post(f"/memories/{ids['year']}/restore", headers=other_tenancy.headers)
    assert restore.status_code == 404
    assert await states(client, tenancy, ids) == {"year": "active"}


async def test_bad_input_is_422_naming_the_field(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    for body, field in (
        ({"now": "yesterday"}, "now"),
        ({"now": "2027-03-01T12:00:00"}, "now"),  # no offset: which day is it?
        ({"dry_run": "yes"}, "dry_run"),
        ({"when": "2027-03-01T12:00:00Z"}, "when"),
    ):
        response = await client.post(
            "/agents/newton/retention/run", json=body, headers=tenancy.headers
        )
        assert response.status_code == 422, body
        assert response.headers["content-type"] == "application/problem+json"
        assert field in str(response.json()), response.json()
    no_body = await client.post("/agents/newton/retention/run", headers=tenancy.headers)
    assert no_body.status_code == 200
