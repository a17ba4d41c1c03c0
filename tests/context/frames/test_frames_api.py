"""Agents add frames or change built-in ones; builds use them."""

import httpx

from tests.factories import Tenancy, fact, put_agent, write

INCIDENT = {
    "description": "Production incident: restore service first, then find the cause.",
    "questions": ["What changed last?"],
    "priorities": {"procedure": 1.0, "episode": 0.9},
    "default_budget": 5000,
    "examples": ["The API is down for every customer", "Checkout is failing in production"],
    "cues": ["outage", "incident", "down"],
}


async def test_custom_frame_is_listed_selected_and_removable(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    put = await client.put("/agents/newton/frames/incident", headers=tenancy.headers, json=INCIDENT)
    assert put.status_code == 200
    frame = put.json()
    assert frame["priorities"]["procedure"] == 1.0
    assert frame["builtin"] is False
    assert frame["customized"] is True
    listed = await client.get("/agents/newton/frames", headers=tenancy.headers)
    assert {f["name"] for f in listed.json()} == {
        "conversation",
        "question",
        "task",
        "decision",
        "debug",
        "incident",
    }
    await write(client, tenancy, fact("The payment provider had an outage last May."))
    built = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": "newton", "input": "Outage: the API is down for every customer!"},
    )
    assert built.json()["frame"]["name"] == "incident"
    assert built.json()["totals"]["budget"] == 5000
    assert "## Current Approach: Incident\nProduction incident" in built.json()["context"]
    removed = await client.delete("/agents/newton/frames/incident", headers=tenancy.headers)
    assert "incident" not in {f["name"] for f in removed.json()}
    gone = await client.delete("/agents/newton/frames/incident", headers=tenancy.headers)
    assert gone.status_code == 404


async def test_builtin_frame_can_be_changed_for_one_agent(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    await client.put(
        "/agents/newton/frames/question", headers=tenancy.headers, json={"default_budget": 1500}
    )
    built = await client.post(
        "/context/build",
        headers=tenancy.headers,
        json={"agent_id": "newton", "input": "When is the next release?", "frame": "question"},
    )
    assert built.json()["totals"]["budget"] == 1500
    frames = (await client.get("/agents/newton/frames", headers=tenancy.headers)).json()
    question = next(f for f in frames if f["name"] == "question")
    assert (question["builtin"], question["customized"]) == (True, True)


async def test_bad_frame_definitions_are_422(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    await put_agent(client, tenancy)
    for body in (
        {"priorities": {"censor": 1.0}},
        {"priorities": {"fact": 2}},
        {"default_budget": 0},
        {"surprise": True},
        {"description": ""},
    ):
        response = await client.put(
            "/agents/newton/frames/incident", headers=tenancy.headers, json=body
        )
        assert response.status_code == 422, body
    bad_name = await client.put("/agents/newton/frames/Bad Name", headers=tenancy.headers, json={})
    assert bad_name.status_code == 422
