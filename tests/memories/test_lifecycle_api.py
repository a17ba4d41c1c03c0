"""PATCH moves memories through their lifecycle; DELETE retires; nonsense answers 409."""

import httpx

from tests.factories import Tenancy, decision, fact, put_agent, write


async def patch(
    client: httpx.AsyncClient, tenancy: Tenancy, memory_id: str, **body: object
) -> httpx.Response:
    return await client.patch(f"/memories/{memory_id}", json=body, headers=tenancy.headers)


async def test_decision_outcome_recomputes_its_summary(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    memory = await write(client, tenancy, decision())
    assert "Outcome: Pending" in memory["representations"]["summary"]["text"]
    response = await patch(
        client,
        tenancy,
        memory["id"],
        action="record_outcome",
        outcome="success",
        notes="Queries got 8.5x faster",
    )
    updated = response.json()
    assert (updated["state"], updated["outcome"]) == ("reviewed", "success")
    assert (
        "Outcome: Success, confidence 0.80. Queries got 8.5x faster."
        in (updated["representations"]["summary"]["text"])
    )
    assert updated["representations"]["micro"]["text"].endswith("[success, 0.80]")
    # the full text changed, so its embedding is recomputed
    assert [job["task"] for job in updated["provenance"]["jobs"]] == ["embed", "embed"]


async def test_senseless_transition_is_409_with_allowed_actions(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    memory = await write(client, tenancy, decision())
    await patch(client, tenancy, memory["id"], action="record_outcome", outcome="failure")
    again = await patch(client, tenancy, memory["id"], action="record_outcome", outcome="success")
    assert again.status_code == 409
    assert again.headers["content-type"] == "application/problem+json"
    assert (again.json()["state"], again.json()["allowed_actions"]) == ("reviewed", [])
    wrong_kind = await patch(client, tenancy, memory["id"], action="confirm")
    assert wrong_kind.status_code == 422
    assert wrong_kind.json()["allowed_actions"] == ["mark_pending", "record_outcome"]
    unchanged = (await client.get(f"/memories/{memory['id']}", headers=tenancy.headers)).json()
    assert unchanged["outcome"] == "failure"


async def test_fact_confirm_supersede_invalidate(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    old = await write(client, tenancy, fact("The API runs on port 8080."))
    new = await write(client, tenancy, fact("The API runs on port 8000."))
    for expected in ("confirmed", "confirmed", "core"):
        response = await patch(client, tenancy, new["id"], action="confirm")
        assert response.json()["state"] == expected
    assert response.json()["fields"]["confirmation_count"] == 3
    superseded = await patch(
        client, tenancy, old["id"], action="supersede", superseded_by=new["id"]
    )
    assert (superseded.json()["state"], superseded.json()["superseded_by"]) == (
        "superseded",
        new["id"],
    )
    assert (await patch(client, tenancy, old["id"], action="invalidate")).json()["state"] == (
        "inactive"
    )


async def test_supersede_needs_a_fact_of_the_same_agent(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    await put_agent(client, tenancy, "other")
    mine = await write(client, tenancy, fact())
    theirs = await write(client, tenancy, fact(), agent="other")
    a_decision = await write(client, tenancy, decision())
    for successor in (theirs["id"], a_decision["id"], mine["id"]):
        response = await patch(
            client, tenancy, mine["id"], action="supersede", superseded_by=successor
        )
        assert response.status_code == 422
        assert response.json()["errors"][0]["loc"] == ["body", "superseded_by"]
    read = (await client.get(f"/memories/{mine['id']}", headers=tenancy.headers)).json()
    assert read["state"] == "new"


async def test_procedure_activation_and_censor_escalation(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    procedure = await write(
        client, tenancy, {"kind": "procedure", "name": "Deploy", "description": "Ship it."}
    )
    missing = await patch(client, tenancy, procedure["id"], action="record_activation")
    assert missing.status_code == 422
    for _ in range(5):
        result = await patch(
            client, tenancy, procedure["id"], action="record_activation", success=True
        )
    assert (result.json()["state"], result.json()["fields"]["effectiveness"]) == ("effective", 1.0)
    censor = await write(
        client, tenancy, {"kind": "censor", "trigger_pattern": "rm -rf", "reason": "data loss"}
    )
    for _ in range(6):
        result = await patch(client, tenancy, censor["id"], action="record_activation")
    escalated = result.json()
    assert (escalated["state"], escalated["fields"]["action"]) == ("escalated", "block")
    assert escalated["representations"]["micro"]["text"].startswith("BLOCK: rm -rf")


async def test_delete_retires_and_never_erases(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    await put_agent(client, tenancy)
    a_fact = await write(client, tenancy, fact())
    a_decision = await write(client, tenancy, decision())
    deleted = await client.delete(f"/memories/{a_fact['id']}", headers=tenancy.headers)
    assert (deleted.status_code, deleted.json()["state"]) == (200, "inactive")
    again = await client.delete(f"/memories/{a_fact['id']}", headers=tenancy.headers)
    assert (again.status_code, again.json()["state"]) == (200, "inactive")
    refused = await client.delete(f"/memories/{a_decision['id']}", headers=tenancy.headers)
    assert refused.status_code == 409
    assert "permanent" in refused.json()["detail"]
    kept = await client.get(f"/memories/{a_fact['id']}", headers=tenancy.headers)
    assert (
        kept.json()["representations"]["full"]["text"] == a_fact["representations"]["full"]["text"]
    )
