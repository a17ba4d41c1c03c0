"""Coordinated forgetting: past its size limit an agent's least salient memories are
deactivated (never erased, never decisions or censors), each with its reason, and restorable."""

import httpx

from tests.factories import Tenancy, decision, fact, put_agent
from tests.retention.conftest import LIMIT
from tests.retention.writes import NOW, censor, days_before, episode, run, states, write_all


async def crowd(client: httpx.AsyncClient, tenancy: Tenancy) -> dict[str, str]:
    """Eight memories in play, two past the limit; their ids by name."""
    await put_agent(client, tenancy)
    old = days_before(300)
    return await write_all(
        client,
        tenancy,
        {
            # Old and never used: the least salient, but permanent records and rules.
            "decision": decision("Chose Postgres", occurred_at=old),
            "censor": censor("rm -rf", 300, action="block"),
            "old_fact": fact("The old cluster ran Ubuntu 18.04.", occurred_at=old, confidence=0.3),
            "older_fact": fact(
                "The lab printer is on floor two.", occurred_at=days_before(350), confidence=0.3
            ),
            "old_episode": episode("Printer jam", 20),
            "recent_fact": fact("Deploys run at 10:00 UTC.", occurred_at=days_before(2)),
            "trusted_fact": fact(
                "Backups are kept 30 days.", occurred_at=days_before(5), confidence=1.0
            ),
            "recent_episode": episode("Release 4.2", 1),
        },
    )


async def test_least_salient_memories_are_forgotten_with_their_reason(
    small_client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    client = small_client
    ids = await crowd(client, tenancy)
    result = await run(client, tenancy, now=NOW.isoformat())
    forgotten = [c for c in result["changes"] if c["rule"] == "forgotten"]
    # 8 in play, the limit is 6: the two least salient facts or episodes go.
    assert {c["memory_id"] for c in forgotten} == {ids["older_fact"], ids["old_fact"]}
    pressure = result["pressure"]
    assert (pressure["memories"], pressure["max_memories"]) == (LIMIT, LIMIT)
    first = forgotten[0]
    assert first["memory_id"] == ids["older_fact"]  # the lowest salience goes first
    assert set(first["details"]["parts"]) == {"recency", "use", "standing", "confidence"}
    assert first["details"]["limit"] == {"memories": LIMIT, "tokens": 2_000_000}
    assert first["details"]["salience"] <= forgotten[1]["details"]["salience"]
    assert "salience" in first["reason"]
    assert "limit 6" in first["reason"]
    final = await states(client, tenancy, ids)
    assert (final["old_fact"], final["decision"], final["censor"]) == (
        "forgotten",
        "recorded",
        "created",
    )
    read = await client.get(f"/memories/{ids['old_fact']}", headers=tenancy.headers)
    assert read.json()["fields"]["content"] == "The old cluster ran Ubuntu 18.04."
    stored = await client.get(
        f"/agents/newton/retention/changes?memory_id={ids['old_fact']}", headers=tenancy.headers
    )
    assert [c["rule"] for c in stored.json()["items"]] == ["forgotten", "fact_stale"]
    assert stored.json()["items"][0]["reason"] == forgotten[1]["reason"]
    # A forgotten memory is left out of builds.
    question = {"agent_id": "newton", "input": "What ran on the old cluster?"}
    built = await client.post(
        "/context/build",
        json={**question, "now": NOW.isoformat()},
        headers=tenancy.headers,
    )
    in_context = [i["memory_id"] for layer in built.json()["layers"] for i in layer["items"]]
    assert ids["old_fact"] not in in_context


async def test_restore_undoes_a_forgetting_for_good(
    small_client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    client = small_client
    ids = await crowd(client, tenancy)
    first = await run(client, tenancy, now=NOW.isoformat())
    (reason,) = [
        c["reason"]
        for c in first["changes"]
        if (c["memory_id"], c["rule"]) == (ids["old_fact"], "forgotten")
    ]
    restored = await client.post(f"/memories/{ids['old_fact']}/restore", headers=tenancy.headers)
    assert restored.status_code == 200, restored.text
    body = restored.json()
    assert (body["state"], body["undone"]["rule"]) == ("new", "forgotten")
    assert body["undone"]["restored_at"] is not None
    assert body["undone"]["reason"] == reason
    # Restored, it stays: the next run forgets another one instead.
    again = await run(client, tenancy, now=NOW.isoformat())
    assert [(c["memory_id"], c["rule"]) for c in again["changes"]] == [
        (ids["old_episode"], "forgotten")
    ]
    assert (await states(client, tenancy, ids))["old_fact"] == "new"
    twice = await client.post(f"/memories/{ids['old_fact']}/restore", headers=tenancy.headers)
    assert twice.status_code == 409
    assert twice.json()["state"] == "new"


async def test_an_agent_under_its_limit_forgets_nothing(
    small_client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(small_client, tenancy)
    ids = await write_all(
        small_client,
        tenancy,
        {f"fact{i}": fact(f"Service {i} listens on port 80{i}.") for i in range(LIMIT)},
    )
    result = await run(small_client, tenancy)
    assert result["changes"] == []
    assert set((await states(small_client, tenancy, ids)).values()) == {"new"}


async def test_only_decisions_and_censors_past_the_limit_are_all_kept(
    small_client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(small_client, tenancy)
    bodies = {f"decision{i}": decision(f"Chose option {i}") for i in range(LIMIT)}
    bodies["censor"] = censor("force push", 10)
    ids = await write_all(small_client, tenancy, bodies)
    result = await run(small_client, tenancy)
    assert result["changes"] == []
    assert result["pressure"]["memories"] == LIMIT + 1
    assert "forgotten" not in (await states(small_client, tenancy, ids)).values()


async def test_an_agent_can_have_its_own_limit(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    limits = await client.get("/agents/newton/retention/limits", headers=tenancy.headers)
    assert limits.json() == {
        "agent_id": "newton",
        "max_active_memories": 10_000,
        "max_active_tokens": 2_000_000,
        "own": {"max_active_memories": None, "max_active_tokens": None},
    }
    ids = await write_all(
        client,
        tenancy,
        {
            "old": fact("The lab printer is on floor two.", occurred_at=days_before(50)),
            "new": fact("Deploys run at 10:00 UTC.", occurred_at=days_before(1)),
        },
    )
    own = await client.put(
        "/agents/newton/retention/limits",
        json={"max_active_memories": 1.0},  # JSON has one number type
        headers=tenancy.headers,
    )
    assert own.status_code == 200, own.text
    assert own.json()["max_active_memories"] == 1
    assert own.json()["own"] == {"max_active_memories": 1, "max_active_tokens": None}
    result = await run(client, tenancy, now=NOW.isoformat())
    assert [(c["memory_id"], c["rule"]) for c in result["changes"]] == [(ids["old"], "forgotten")]
    assert result["pressure"]["max_memories"] == 1
    for wrong in (-1, 1.5, "5", True):
        bad = await client.put(
            "/agents/newton/retention/limits",
            json={"max_active_memories": wrong},
            headers=tenancy.headers,
        )
        assert bad.status_code == 422, wrong
        assert bad.json()["errors"][0]["loc"] == ["body", "max_active_memories"]
    hidden = await client.put(
        "/agents/newton/retention/limits", json={}, headers=other_tenancy.headers
    )
    assert hidden.status_code == 404
    back = await client.put("/agents/newton/retention/limits", json={}, headers=tenancy.headers)
    assert back.json()["max_active_memories"] == 10_000
