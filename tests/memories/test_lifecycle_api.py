"""PATCH moves memories through their lifecycle; DELETE erases; nonsense answers 409."""

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from tests.factories import Tenancy, decision, fact, procedure, put_agent, write


async def patch(
    client: httpx.AsyncClient, tenancy: Tenancy, memory_id: str, **body: object
) -> httpx.Response:
    return await client.patch(f"/memories/{memory_id}", json=body, headers=tenancy.headers)


async def test_decision_outcome_recomputes_its_summary(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    memory = await write(client, tenancy, decision())
    assert memory["representations"]["summary"]["text"].startswith(
        "Chose Postgres over ChromaDB [pending, 0.80]"
    )
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
        "Outcome: success — Queries got 8.5x faster" in (updated["representations"]["full"]["text"])
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
    assert (again.json()["state"], again.json()["allowed_actions"]) == (
        "reviewed",
        ["amend_outcome"],
    )
    unchanged = (await client.get(f"/memories/{memory['id']}", headers=tenancy.headers)).json()
    assert unchanged["outcome"] == "failure"


async def test_action_the_kind_does_not_have_is_409_with_allowed_actions(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    memory = await write(client, tenancy, decision())
    wrong_kind = await patch(client, tenancy, memory["id"], action="confirm")
    assert wrong_kind.status_code == 409
    assert wrong_kind.headers["content-type"] == "application/problem+json"
    problem = wrong_kind.json()
    assert "'confirm' is not an action for a decision" in problem["detail"]
    assert (problem["state"], problem["allowed_actions"]) == (
        "recorded",
        ["mark_pending", "record_outcome"],
    )
    read = (await client.get(f"/memories/{memory['id']}", headers=tenancy.headers)).json()
    assert read["state"] == "recorded"


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
        assert response.status_code == 409, response.text
        assert response.json()["superseded_by"] == successor
    read = (await client.get(f"/memories/{mine['id']}", headers=tenancy.headers)).json()
    assert read["state"] == "new"


async def test_procedure_activation_and_censor_escalation(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    deploy = await write(client, tenancy, procedure())
    missing = await patch(client, tenancy, deploy["id"], action="record_activation")
    assert missing.status_code == 409  # a censor takes it without `success`, a procedure not
    assert "success" in missing.json()["detail"]
    for _ in range(5):
        result = await patch(
            client, tenancy, deploy["id"], action="record_activation", success=True
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


async def test_delete_erases_the_memory(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    await put_agent(client, tenancy)
    a_fact = await write(client, tenancy, fact("The staging database is called pluto."))
    kept = await write(client, tenancy, fact("The production database is called mars."))
    url = f"/memories/{a_fact['id']}"
    deleted = await client.delete(url, headers=tenancy.headers)
    assert (deleted.status_code, deleted.content) == (204, b"")
    for response in (
        await client.get(url, headers=tenancy.headers),
        await patch(client, tenancy, a_fact["id"], action="confirm"),
        await client.post(
            "/context/expand", json={"memory_id": a_fact["id"]}, headers=tenancy.headers
        ),
        await client.delete(url, headers=tenancy.headers),
    ):
        # Gone: its tombstone says it was erased and when (another tenant's answer is 404).
        assert response.status_code == 410, response.text
        assert response.json()["kind"] == "fact"
    listed = await client.get("/agents/newton/memories", headers=tenancy.headers)
    assert [item["id"] for item in listed.json()["items"]] == [kept["id"]]
    found = await client.get(
        "/agents/newton/memories", params={"q": "pluto"}, headers=tenancy.headers
    )
    assert found.json()["items"] == []


async def test_delete_takes_the_jobs_and_keeps_superseded_facts_pointing_forward(
    client: httpx.AsyncClient, tenancy: Tenancy, connection: AsyncConnection
) -> None:
    await put_agent(client, tenancy)
    first, second, third = [
        await write(client, tenancy, fact(f"The API runs on port {port}."))
        for port in (8080, 8000, 9000)
    ]
    await patch(client, tenancy, first["id"], action="supersede", superseded_by=second["id"])
    await patch(client, tenancy, second["id"], action="supersede", superseded_by=third["id"])

    await client.delete(f"/memories/{second['id']}", headers=tenancy.headers)
    oldest = (await client.get(f"/memories/{first['id']}", headers=tenancy.headers)).json()
    assert (oldest["state"], oldest["superseded_by"]) == ("superseded", third["id"])
    await client.delete(f"/memories/{third['id']}", headers=tenancy.headers)
    oldest = (await client.get(f"/memories/{first['id']}", headers=tenancy.headers)).json()
    assert (oldest["state"], oldest["superseded_by"]) == ("superseded", None)
    jobs = await connection.scalar(
        text("SELECT count(*) FROM job WHERE memory_id IN (:second, :third)"),
        {"second": second["id"], "third": third["id"]},
    )
    assert jobs == 0


async def test_a_repeated_fact_confirms_the_one_already_known(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    first = await write(client, tenancy, fact("Redis adds a separate service to run."))
    again = await write(client, tenancy, fact("redis adds a separate service to run"))
    assert (again["id"], again["written"], again["state"]) == (
        first["id"],
        "confirmed_existing",
        "confirmed",
    )
    assert again["fields"]["confirmation_count"] == 1
    other = await write(client, tenancy, fact("Redis adds 2 separate services to run."))
    assert (other["written"], other["state"]) == ("created", "new")
    listed = await client.get(
        "/agents/newton/memories", params={"kind": "fact"}, headers=tenancy.headers
    )
    assert len(listed.json()["items"]) == 2
    metrics = (await client.get("/metrics")).text
    assert 'ce_fact_confirmations_total{via="repeated"}' in metrics
    assert "ce_fact_confirmation_rate" in metrics


async def test_a_decision_written_with_its_outcome_is_reviewed(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    known = await write(client, tenancy, decision(outcome="success", confidence=0.9))
    open_ = await write(client, tenancy, decision("Chose Redis for queues"))
    assert (known["state"], open_["state"]) == ("reviewed", "recorded")
