"""Efforts over HTTP: opened, appended to, concluded and summarized in the background, listed,
expanded; the errors are problem+json, and another tenant sees none of it."""

import httpx

from app.core.worker import Worker
from tests.efforts.helpers import EFFORTS, SESSION, act, efforts, open_effort, say
from tests.factories import Tenancy, put_agent


async def test_an_effort_owns_the_messages_appended_while_it_is_open(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    await say(client, tenancy, ("user", "Hello there."), ("assistant", "Hi."))
    effort_id = await open_effort(
        client, tenancy, "Fix the login 401s", "Find why refresh tokens are rejected."
    )
    assert effort_id == "e_1"
    await say(
        client,
        tenancy,
        ("user", "The gateway rejects refresh tokens after login with a 401."),
        ("assistant", "The gateway checks the token audience; the refresh token lacks it."),
    )
    listed = (await efforts(client, tenancy))["e_1"]
    assert listed["state"] == "open"
    assert (listed["messages"], listed["opened_turn"]) == (2, 1)
    assert listed["tokens"] > 10

    concluded = await act(client, tenancy, "e_1", "conclude")
    assert concluded.status_code == 200, concluded.text
    assert concluded.json()["state"] == "concluded"
    assert concluded.json()["summary"] is None  # made in the background
    assert concluded.json()["concluded_turn"] == 2
    await say(client, tenancy, ("user", "Thanks, unrelated: lunch?"))
    assert (await efforts(client, tenancy))["e_1"]["messages"] == 2  # ambient again

    await worker.drain()
    listed = (await efforts(client, tenancy))["e_1"]
    assert listed["summary_method"] == "extractive"
    assert "audience" in listed["summary"]
    assert listed["in_working_memory"] is True
    one = await client.get(f"{EFFORTS}/e_1", headers=tenancy.headers)
    assert one.json() == listed


async def test_expand_returns_the_raw_messages(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await put_agent(client, tenancy)
    await open_effort(client, tenancy, "Invoice report speed")
    await say(client, tenancy, ("user", "The invoice report takes 40 seconds."))
    await act(client, tenancy, "e_1", "conclude")
    await worker.drain()
    expanded = await act(client, tenancy, "e_1", "expand")
    assert expanded.status_code == 200, expanded.text
    assert expanded.json()["effort"]["state"] == "expanded"
    assert [m["content"] for m in expanded.json()["messages"]] == [
        "The invoice report takes 40 seconds."
    ]


async def test_state_conflicts_are_409(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    await put_agent(client, tenancy)
    await open_effort(client, tenancy, "First")
    second = await client.post(EFFORTS, json={"title": "Second"}, headers=tenancy.headers)
    assert second.status_code == 409
    assert second.headers["content-type"] == "application/problem+json"
    assert second.json()["open_effort_id"] == "e_1"
    assert (await act(client, tenancy, "e_1", "expand")).status_code == 409  # open
    assert (await act(client, tenancy, "e_1", "conclude")).status_code == 200
    again = await act(client, tenancy, "e_1", "conclude")
    assert again.status_code == 409
    assert again.json()["state"] == "concluded"
    assert (await act(client, tenancy, "e_1", "expand")).status_code == 200
    assert (await act(client, tenancy, "e_1", "expand")).status_code == 409


async def test_bad_input_names_the_field(client: httpx.AsyncClient, tenancy: Tenancy) -> None:
    await put_agent(client, tenancy)
    empty = await client.post(EFFORTS, json={"title": ""}, headers=tenancy.headers)
    assert empty.status_code == 422
    assert empty.headers["content-type"] == "application/problem+json"
    assert empty.json()["errors"][0]["loc"] == ["body", "title"]
    missing = await client.post(EFFORTS, json={"goal": "x"}, headers=tenancy.headers)
    assert missing.status_code == 422
    bad_id = await client.post(f"{EFFORTS}/one/conclude", headers=tenancy.headers)
    assert bad_id.status_code == 422
    assert bad_id.json()["errors"][0]["loc"] == ["path", "effort_id"]
    search = await client.get(f"{EFFORTS}/search", headers=tenancy.headers)
    assert search.status_code == 422
    nul = await client.get(f"{EFFORTS}/search", params={"query": "a\x00b"}, headers=tenancy.headers)
    assert nul.status_code == 422
    assert nul.json()["errors"][0]["loc"] == ["query", "query"]
    # Nothing half-written: not even the session the first effort would have created.
    assert (await client.get(EFFORTS, headers=tenancy.headers)).status_code == 404


async def test_unknown_efforts_and_sessions_are_404(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    assert (await client.get(EFFORTS, headers=tenancy.headers)).status_code == 404  # no session
    await open_effort(client, tenancy, "Mine")
    assert (await act(client, tenancy, "e_2", "conclude")).status_code == 404
    assert (await client.get(f"{EFFORTS}/e_9", headers=tenancy.headers)).status_code == 404
    # Another tenant, even with an agent of the same name, sees none of it.
    await put_agent(client, other_tenancy)
    assert (await client.get(EFFORTS, headers=other_tenancy.headers)).status_code == 404
    assert (await act(client, other_tenancy, "e_1", "conclude")).status_code == 404
    theirs = await client.get(f"{SESSION}/efforts/e_1", headers=other_tenancy.headers)
    assert theirs.status_code == 404
    assert (await efforts(client, tenancy))["e_1"]["state"] == "open"


async def test_a_session_opened_by_an_effort_reads_before_its_first_message(
    client: httpx.AsyncClient, tenancy: Tenancy
) -> None:
    await put_agent(client, tenancy)
    await open_effort(client, tenancy, "Plan")
    empty = await client.get(SESSION, headers=tenancy.headers)
    assert empty.status_code == 200, empty.text
    assert empty.json()["messages"] == 0
    assert empty.json()["first_message_at"] is None
    assert empty.json()["last_message_at"] is None
    await say(client, tenancy, ("user", "Where do we start?"))
    one = (await client.get(SESSION, headers=tenancy.headers)).json()
    assert one["messages"] == 1
    assert one["first_message_at"] == one["last_message_at"] is not None
