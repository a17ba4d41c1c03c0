"""The effort tools over HTTP: search_memory finds a session's efforts by their topic,
expand_effort loads one back into working memory and shows its messages, effort_status tells how
they stand; a call on an effort is a reference to it at the session's turn."""

from typing import Any

import httpx

from app.core.worker import Worker
from app.providers.container import Providers
from tests.efforts.helpers import EFFORTS, build, efforts, open_effort, say, shown
from tests.efforts.test_proof_run import TOPICS, filler, setup, turn
from tests.efforts.test_references import concluded_effort
from tests.factories import Tenancy
from tests.tools.calls import call, result

SESSION = "work-1"
PROBLEM = "application/problem+json"


def effort_ids(found: dict[str, Any]) -> list[str]:
    return [r["id"] for r in found["references"] if r["kind"] == "effort"]


async def test_search_memory_finds_a_concluded_effort_by_its_topic(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await concluded_effort(client, tenancy, worker)
    arguments = {"query": "slow invoices reports", "session_id": SESSION}
    found = await result(client, tenancy, "search_memory", arguments)
    assert len(effort_ids(found)) == 1
    assert f"Efforts of session {SESSION}:" in found["content"]
    assert "- [effort e_1] Invoice report speed: concluded, in context, " in found["content"]
    summary = (await efforts(client, tenancy))["e_1"]["summary"]
    assert summary
    assert summary in found["content"]
    assert "expand_effort(session_id, effort_id)" in found["content"]
    # By its id too; nothing else matches; without the session no effort is searched.
    by_id = await result(client, tenancy, "search_memory", {"query": "e_1", "session_id": SESSION})
    assert effort_ids(by_id) == effort_ids(found)
    other = {"query": "quantum chromodynamics", "session_id": SESSION}
    none = await result(client, tenancy, "search_memory", other)
    assert effort_ids(none) == []
    assert f'No effort of session {SESSION} matches "quantum chromodynamics".' in none["content"]
    alone = await result(client, tenancy, "search_memory", {"query": "slow invoices reports"})
    assert "effort" not in alone["content"]


async def test_expand_effort_loads_its_messages_and_shows_them(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await concluded_effort(client, tenancy, worker)
    arguments = {"session_id": SESSION, "effort_id": "e_1"}
    found = await result(client, tenancy, "expand_effort", arguments, tool_call_id="call_1")
    assert found["content"].startswith("[effort e_1] Invoice report speed (expanded: ")
    assert (
        "- [message seq 0] user: The invoice report query scans every customer row."
        in (found["content"])
    )
    assert "- [message seq 3] assistant: Shipped." in found["content"]
    assert [r["kind"] for r in found["references"]] == ["effort", *["message"] * 4]
    listed = (await efforts(client, tenancy))["e_1"]
    assert (listed["state"], listed["expanded_turn"]) == ("expanded", 2)
    assert listed["summary"] in found["content"]
    # Again: it is raw already, shown the same way without a conflict.
    again = await result(client, tenancy, "expand_effort", arguments)
    assert again["content"].startswith("[effort e_1] Invoice report speed (expanded: its messages")
    assert "Shipped." in again["content"]
    # Held to max_tokens like every tool: the messages that do not fit are left out.
    short = await result(client, tenancy, "expand_effort", arguments, max_tokens=64)
    assert short["tokens"] <= 64
    assert short["left_out"] > 0
    # An open effort is raw already: shown, still open.
    await open_effort(client, tenancy, "Sailing trip")
    await say(client, tenancy, ("user", "Which islands first?"))
    arguments = {"session_id": SESSION, "effort_id": "e_2"}
    opened = await result(client, tenancy, "expand_effort", arguments)
    assert opened["content"].startswith("[effort e_2] Sailing trip (open: its messages are in ")
    assert "- [message seq 4] user: Which islands first?" in opened["content"]
    assert (await efforts(client, tenancy))["e_2"]["state"] == "open"


async def test_effort_status_lists_the_efforts_or_one(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await concluded_effort(client, tenancy, worker)
    listed = await result(client, tenancy, "effort_status", {"session_id": SESSION})
    assert listed["content"].startswith(f"Efforts of session {SESSION}, newest first (turn 2):")
    assert (
        "- [effort e_1] Invoice report speed: concluded, in context, last referenced at "
        in (listed["content"])
    )
    assert "turn 2, 4 messages." in listed["content"]
    assert listed["references"] == []  # a listing refers to none of them
    await open_effort(client, tenancy, "Sailing trip", "Charter a catamaran for the islands.")
    listed = await result(client, tenancy, "effort_status", {"session_id": SESSION})
    lines = listed["content"].splitlines()
    assert lines[1].startswith("- [effort e_2] Sailing trip: open, in context, ")
    assert "(no summary yet)" in lines[1]
    assert lines[2].startswith("- [effort e_1] Invoice report speed: ")
    one = await result(
        client, tenancy, "effort_status", {"session_id": SESSION, "effort_id": "e_1"}
    )
    assert "- [effort e_1] Invoice report speed: concluded" in one["content"]
    assert len(effort_ids(one)) == 1


async def test_a_call_on_an_effort_counts_as_a_reference(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await concluded_effort(client, tenancy, worker)

    async def last_referenced() -> int:
        return int((await efforts(client, tenancy))["e_1"]["last_referenced_turn"])

    await say(client, tenancy, ("user", "Next topic."))  # turn 3
    await result(client, tenancy, "effort_status", {"session_id": SESSION})
    assert await last_referenced() == 2  # listing is no reference
    await result(client, tenancy, "effort_status", {"session_id": SESSION, "effort_id": "e_1"})
    assert await last_referenced() == 3
    await say(client, tenancy, ("user", "Another topic."))  # turn 4
    search = {"query": "slow invoices reports", "session_id": SESSION}
    await result(client, tenancy, "search_memory", search)
    assert await last_referenced() == 4
    await say(client, tenancy, ("user", "And one more."))  # turn 5
    await result(client, tenancy, "expand_effort", {"session_id": SESSION, "effort_id": "e_1"})
    assert await last_referenced() == 5
    await say(client, tenancy, ("user", "Last one."))  # turn 6
    await result(client, tenancy, "expand_effort", {"session_id": SESSION, "effort_id": "e_1"})
    assert await last_referenced() == 6  # expanded already: still a reference


async def test_an_unknown_effort_or_session_is_404_naming_the_argument(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker
) -> None:
    await concluded_effort(client, tenancy, worker)
    cases = [
        ("expand_effort", {"session_id": SESSION, "effort_id": "e_9"}, "effort_id"),
        ("effort_status", {"session_id": SESSION, "effort_id": "e_9"}, "effort_id"),
        ("expand_effort", {"session_id": "nope", "effort_id": "e_1"}, "session_id"),
        ("effort_status", {"session_id": "nope"}, "session_id"),
    ]
    for name, arguments, field in cases:
        response = await call(client, tenancy, name, arguments)
        assert response.status_code == 404, response.text
        assert response.headers["content-type"] == PROBLEM
        assert response.json()["errors"][0]["loc"] == ["body", "arguments", field]
    for arguments in ({"session_id": SESSION}, {"session_id": SESSION, "effort_id": "4"}):
        response = await call(client, tenancy, "expand_effort", arguments)
        assert response.status_code == 422, response.text
        assert response.json()["errors"][0]["loc"][:2] == ["body", "arguments"]


async def test_another_tenant_sees_no_effort(
    client: httpx.AsyncClient, tenancy: Tenancy, other_tenancy: Tenancy, worker: Worker
) -> None:
    await concluded_effort(client, tenancy, worker)
    arguments = {"session_id": SESSION, "effort_id": "e_1"}
    for name in ("expand_effort", "effort_status"):
        response = await call(client, other_tenancy, name, arguments)
        assert response.status_code == 404
        assert response.headers["content-type"] == PROBLEM
    assert (await efforts(client, tenancy))["e_1"]["state"] == "concluded"


async def test_the_proof_runs_search_and_expansion_through_the_tools(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker, providers: Providers
) -> None:
    """Seed 002's turns 21-23 (tests/efforts/test_proof_run.py) with the model's tool calls in
    place of the efforts API: the search finds evicted e_4 by its topic and brings its summary
    back; expand_effort makes it raw."""
    await setup(client, tenancy, worker)
    await turn(client, tenancy, providers, "Recall e_1 and e_2 for me.", "Both done.")
    for n in range(2, 21):
        await say(client, tenancy, *filler(100 + n))
    later = await turn(client, tenancy, providers, *(m for _, m in filler(121)))
    assert shown(later)["e_4"] == "evicted"

    asked = "What happened with the ledger migration to PostgreSQL?"
    found = await result(client, tenancy, "search_memory", {"query": asked, "session_id": SESSION})
    efforts_part = found["content"].split(f"Efforts of session {SESSION}:\n")[1]
    assert efforts_part.startswith("- [effort e_4] Ledger migration: concluded, not in context, ")
    listed = (await client.get(EFFORTS, headers=tenancy.headers)).json()
    e_4 = listed["items"][3]
    assert e_4["in_working_memory"]  # the search referred to it: back in context
    assert e_4["last_referenced_turn"] == listed["turn"]
    assert shown(await build(client, tenancy, providers))["e_4"] == "summary"

    arguments = {"session_id": SESSION, "effort_id": "e_4"}
    expanded = await result(client, tenancy, "expand_effort", arguments)
    assert TOPICS[3][1] in expanded["content"]
    after = await build(client, tenancy, providers, "Show me every detail of it.")
    assert shown(after)["e_4"] == "raw"
    assert TOPICS[3][1] in [m["content"] for m in after["messages"]]
