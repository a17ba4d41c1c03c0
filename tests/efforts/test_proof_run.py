"""Seed 002's proof run, through the API: 5 concluded efforts and 30 ambient exchanges; turn 1
refers to efforts 1 and 2; by turn 21 efforts 3-5 have left working memory (and the context says
how to find them); turn 22 asks about effort 4's topic and the search finds it; turn 23 expands
it; by turn 26 it has collapsed to its summary. Every build keeps the promise."""

from typing import Any

import httpx

from app.core.worker import Worker
from app.providers.container import Providers
from tests.efforts.helpers import (
    EFFORTS,
    act,
    build,
    efforts,
    open_effort,
    say,
    shown,
    working_tokens,
)
from tests.factories import Tenancy, put_agent

TOPICS = [
    ("Login 401 errors", "The gateway rejects the refresh token after login with a 401.",
     "The refresh token lacks the audience claim; the gateway wants it."),
    ("Invoice report speed", "The invoice report query takes forty seconds on customers.",
     "An index on invoices by customer brings the report under a second."),
    ("Sailing trip", "Plan the sailing trip to the islands in June with a catamaran.",
     "Charter the catamaran from Split; the islands route takes six days."),
    ("Ledger migration", "Migrate the ledger tables from MySQL to PostgreSQL with pgloader.",
     "Pgloader moved the ledger; the triggers were rewritten for PostgreSQL."),
    ("Onboarding guide", "Rewrite the onboarding guide for new hires with screenshots.",
     "The onboarding guide now walks new hires through laptop setup with screenshots."),
]  # fmt: skip


def filler(turn: int) -> tuple[tuple[str, str], tuple[str, str]]:
    return (
        ("user", f"Small talk {turn}: how was lunch today?"),
        ("assistant", "Fine, thank you, pasta again."),
    )


async def turn(
    client: httpx.AsyncClient,
    tenancy: Tenancy,
    providers: Providers,
    user: str,
    reply: str,
) -> dict[str, Any]:
    """A user's message, the build for it, and the assistant's reply."""
    await say(client, tenancy, ("user", user))
    result = await build(client, tenancy, providers, user)
    await say(client, tenancy, ("assistant", reply))
    return result


async def setup(client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker) -> None:
    await put_agent(client, tenancy)
    for i in range(30):
        await say(client, tenancy, *filler(i))
    for title, question, answer in TOPICS:
        effort_id = await open_effort(client, tenancy, title)
        await say(client, tenancy, ("user", question), ("assistant", answer))
        for step in range(3):  # the details: raw, they cost more than the summary
            await say(
                client,
                tenancy,
                ("user", f"Step {step} of {title.lower()}: what exactly did we run?"),
                ("assistant", f"Step {step}: {answer} {question} We logged every command."),
            )
        assert (await act(client, tenancy, effort_id, "conclude")).status_code == 200
    await worker.drain()


async def test_the_proof_run(
    client: httpx.AsyncClient, tenancy: Tenancy, worker: Worker, providers: Providers
) -> None:
    await setup(client, tenancy, worker)
    start = await build(client, tenancy, providers, "Where were we?")
    assert set(shown(start).values()) == {"summary"}
    assert start["context"].count("[effort e_") == 5
    ambient = [m for m in start["messages"] if m["content"].startswith("Small talk")]
    assert ambient[0]["content"] == "Small talk 20: how was lunch today?"
    assert len(ambient) == 10  # the last 10 ambient exchanges
    tokens = {"setup": working_tokens(start)}

    first = await turn(client, tenancy, providers, "Recall e_1 and e_2 for me.", "Both done.")
    tokens["turn 1"] = working_tokens(first)
    listed = await efforts(client, tenancy)
    base = listed["e_1"]["last_referenced_turn"]
    assert listed["e_2"]["last_referenced_turn"] == base
    assert listed["e_3"]["last_referenced_turn"] < base

    for n in range(2, 21):
        await say(client, tenancy, *filler(100 + n))
    later = await turn(client, tenancy, providers, *(m for _, m in filler(121)))
    tokens["turn 21"] = working_tokens(later)
    assert shown(later) == {
        "e_1": "summary", "e_2": "summary", "e_3": "evicted", "e_4": "evicted", "e_5": "evicted",
    }  # fmt: skip
    assert "## Memory" in later["context"]
    assert "3 older efforts are still stored" in later["context"]
    assert "Ledger migration" not in later["context"]
    assert not (await efforts(client, tenancy))["e_4"]["in_working_memory"]

    asked = "What happened with the ledger migration to PostgreSQL?"
    found = await client.get(f"{EFFORTS}/search", params={"query": asked}, headers=tenancy.headers)
    assert found.json()["items"][0]["effort"]["effort_id"] == "e_4"
    again = await turn(client, tenancy, providers, asked, "Pgloader moved it, see e_4.")
    tokens["turn 22"] = working_tokens(again)
    assert shown(again)["e_4"] == "summary"  # the question referred to it

    await say(client, tenancy, ("user", "Show me every detail of it."))
    assert (await act(client, tenancy, "e_4", "expand")).status_code == 200
    expanded = await build(client, tenancy, providers, "Show me every detail of it.")
    await say(client, tenancy, ("assistant", "Here they are."))
    tokens["turn 23"] = working_tokens(expanded)
    assert shown(expanded)["e_4"] == "raw"
    said = [m["content"] for m in expanded["messages"]]
    assert TOPICS[3][1] in said
    assert tokens["turn 23"] > tokens["turn 22"]

    for n in (24, 25):
        still = await turn(client, tenancy, providers, *(m for _, m in filler(100 + n)))
        assert shown(still)["e_4"] == "raw"
    collapsed = await turn(client, tenancy, providers, *(m for _, m in filler(126)))
    tokens["turn 26"] = working_tokens(collapsed)
    assert shown(collapsed)["e_4"] == "summary"
    assert TOPICS[3][1] not in [m["content"] for m in collapsed["messages"]]
    assert (await efforts(client, tenancy))["e_4"]["state"] == "concluded"
    # Bounded: what the expansion added is gone again.
    assert tokens["turn 26"] < tokens["turn 23"]
